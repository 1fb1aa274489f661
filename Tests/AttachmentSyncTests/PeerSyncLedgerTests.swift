import AttachmentStore
import AttachmentSync
import Foundation
import Testing

/// `PeerSyncLedger`: what `/sync/status` and `/metrics` report of each peer.
@Suite("Peer sync ledger")
struct PeerSyncLedgerTests {
    @Test("a completed round clears the last failure and records when")
    func completedRoundClearsTheFailure() {
        let ledger = PeerSyncLedger()
        ledger.record(failure: SyncError.peerUnreachable(peer: "https://a.example", reason: "connection refused"), peer: "https://a.example")
        #expect(ledger.snapshot.first?.lastError?.contains("cannot be reached") == true)
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        ledger.recordCompletedRound(peer: "https://a.example", at: when)
        let entry = ledger.snapshot[0]
        #expect(entry.peer == "https://a.example")
        #expect(entry.rounds == 1)
        #expect(entry.lastError == nil)
        #expect(entry.lastSyncAt == when)
    }

    @Test("batches add up their changes and refusals; the latest problems replace older ones")
    func batchesAddUp() {
        let ledger = PeerSyncLedger()
        var first = SyncApplyReport()
        first.invalid = 2
        first.problems = ["a note id is not a UUID"]
        ledger.record(batch: first, changes: 10, peer: "p")
        ledger.record(batch: SyncApplyReport(), changes: 5, peer: "p")
        let entry = ledger.snapshot[0]
        #expect(entry.changes == 15)
        #expect(entry.invalidChanges == 2)
        #expect(entry.latestProblems == ["a note id is not a UUID"])
    }

    @Test("a registered peer is listed before its first round, and registering again keeps what it saw")
    func registeredPeerIsListed() {
        let ledger = PeerSyncLedger()
        ledger.register(peer: "https://a.example")
        #expect(ledger.snapshot.map(\.peer) == ["https://a.example"])
        #expect(ledger.snapshot[0].rounds == 0 && ledger.snapshot[0].lastSyncAt == nil)
        ledger.recordCompletedRound(peer: "https://a.example")
        ledger.register(peer: "https://a.example")
        #expect(ledger.snapshot[0].rounds == 1)
    }

    @Test("peers are listed in order of their names")
    func peersInOrder() {
        let ledger = PeerSyncLedger()
        for peer in ["https://c", "https://a", "https://b"] { ledger.recordCompletedRound(peer: peer) }
        #expect(ledger.snapshot.map(\.peer) == ["https://a", "https://b", "https://c"])
    }
}
