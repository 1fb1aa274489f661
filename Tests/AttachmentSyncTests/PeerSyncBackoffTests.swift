import AttachmentStore
import AttachmentSync
import Foundation
import Testing
import TestSupport

/// The sync loop itself on a clock the test drives: minutes of back-off against a peer that
/// cannot be reached, without waiting for any of them.
@Suite("Peer sync back-off", .timeLimit(.minutes(2)))
struct PeerSyncBackoffTests {
    @Test("an unreachable peer is asked again after 10, 20, 40, then 60 s, and every failure is in the ledger")
    func unreachablePeerBacksOff() async throws {
        let fixture = try await StoreFixture("backoff")
        // Nothing listens on port 1: each round is refused at once.
        let peer = Peer(url: try #require(URL(string: "http://127.0.0.1:1")))
        var configuration = PeerSyncService.Configuration(peers: [peer])
        configuration.interval = .seconds(5)
        configuration.maximumBackoff = .seconds(60)
        configuration.pushMode = .off
        let clock = ManualClock()
        let service = PeerSyncService(store: fixture.store, fetcher: BlobFetcher(peers: [peer]), configuration: configuration, clock: clock)
        let syncing = Task { try await service.run() }
        defer { syncing.cancel() }

        var waits: [Duration] = []
        for _ in 0..<5 {
            let pending = await clock.sleepers(atLeast: 1)
            waits.append(pending[0])
            clock.advance(by: pending[0])
        }
        #expect(waits == [.seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60)])
        let entry = try #require(service.ledger.snapshot.first)
        #expect(entry.rounds == 0)
        #expect(entry.lastError?.contains("cannot be reached") == true)
        syncing.cancel()
        _ = await syncing.result
    }
}
