@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import Synchronization
import Testing
import TestSupport

/// A store far behind its peer (a new device's first sync): the round reads larger pages while
/// they come back full, fetches the next page while it applies one, and moves its cursor with
/// each applied page.
@Suite("A pull that catches up")
struct SyncCatchUpTests {
    /// The pages a peer was asked for, in order.
    final class AskedPages: Sendable {
        private let pages = Mutex<[(since: Int, limit: Int)]>([])
        func append(_ page: (since: Int, limit: Int)) { pages.withLock { $0.append(page) } }
        var all: [(since: Int, limit: Int)] { pages.withLock { $0 } }
    }

    /// A feed of `total` small notes that honours `since` and `limit`, recording what was asked.
    static func feed(total: Int, asked: AskedPages) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("sync/changes") { request, _ -> Response in
            let since = Int(request.uri.queryParameters.get("since") ?? "0") ?? 0
            let limit = Int(request.uri.queryParameters.get("limit") ?? "500") ?? 500
            asked.append((since, limit))
            let end = min(total, since + limit)
            let changes = (since..<end).map { index -> [String: Any] in
                ["kind": "note", "note": [
                    "id": String(format: "88888888-8888-4888-8888-%012d", index), "title": "note \(index)", "body": "",
                    "createdAt": HostilePeer.now, "updatedAt": HostilePeer.now, "clock": HostilePeer.clock(HostilePeer.now + Int64(index)),
                ] as [String: Any]]
            }
            let json = try JSONSerialization.data(withJSONObject: ["peerID": "far-ahead", "changes": changes,
                                                                   "nextSequence": end, "hasMore": end < total])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: json)))
        }
        return router
    }

    @Test("full pages double the next request up to the catch-up size; every change is applied once and the cursor ends at the feed's end")
    func pagesGrowWhileFull() async throws {
        let asked = AskedPages()
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        try await HostilePeer.serve(Self.feed(total: 12_000, asked: asked)) { url in
            let report = try await SyncRound(peer: Peer(url: url)).run(into: store)
            #expect(report.applied.notesApplied == 12_000)
            #expect(report.batches == 5)
            #expect(report.cursor == 12_000)
            #expect(try await store.syncCursor(forPeer: url.absoluteString) == 12_000)
            #expect(try await store.statistics().notes == 12_000)
        }
        let requests = asked.all
        #expect(requests.map(\.limit) == [500, 1_000, 2_000, 4_000, 5_000])
        #expect(requests.map(\.since) == [0, 500, 1_500, 3_500, 7_500], "each page starts where the last one ended")
    }

    @Test("a round that reaches its batch limit asks for no page it will not apply, and the next round goes on from its cursor")
    func batchLimitStopsPrefetch() async throws {
        let asked = AskedPages()
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        try await HostilePeer.serve(Self.feed(total: 3_000, asked: asked)) { url in
            var round = SyncRound(peer: Peer(url: url))
            round.maxBatches = 2
            let first = try await round.run(into: store)
            #expect(first.cursor == 1_500)
            #expect(asked.all.count == 2, "no third page was fetched ahead")
            let second = try await round.run(into: store)
            #expect(second.cursor == 3_000)
            #expect(second.applied.notesApplied == 1_500)
        }
        #expect(asked.all.map(\.since) == [0, 500, 1_500, 2_000])
    }
}
