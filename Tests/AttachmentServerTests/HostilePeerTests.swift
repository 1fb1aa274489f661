@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

/// A peer that lies, written for the test: a real HTTP server speaking the sync protocol with
/// crafted batches and bytes. Every field it sends is something a store must not believe.
struct HostilePeer {
    /// What the feed does after its first batch.
    enum Ending: Sendable {
        /// `hasMore: true` with the cursor left where it was.
        case stuck
        /// `hasMore: true` forever, the cursor moving one step each time.
        case endless
    }

    static let lyingNote = "11111111-1111-4111-8111-111111111111"
    static let afterTombstoneNote = "22222222-2222-4222-8222-222222222222"
    static let lyingTypeAttachment = "33333333-3333-4333-8333-333333333333"
    static let shortCountAttachment = "44444444-4444-4444-8444-444444444444"
    static let hugeCountAttachment = "55555555-5555-4555-8555-555555555555"
    static let futureNote = "66666666-6666-4666-8666-666666666666"
    static let markup = "<script>alert('peer')</script>"

    /// The photo whose bytes it serves (under a lying media type, and under a short count).
    let photo: Data
    let photoHash: String
    /// The photo with a byte changed: served under a record that announces fewer bytes.
    let otherPhoto: Data
    let otherPhotoHash: String
    let ending: Ending

    init(ending: Ending) throws {
        photo = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        photoHash = try Files.sha256(try Corpus.file("special/baseline.jpg"))
        otherPhoto = try Data(contentsOf: try Corpus.file("good/Aqua.jpg"))
        otherPhotoHash = try Files.sha256(try Corpus.file("good/Aqua.jpg"))
        self.ending = ending
    }

    static let now = Int64(Date().timeIntervalSince1970 * 1000)
    static func clock(_ milliseconds: Int64 = now) -> String { String(format: "%013lld-000000-hostile-peer", milliseconds) }

    static func note(_ id: String, title: String, clock: String = clock()) -> [String: Any] {
        ["kind": "note", "note": ["id": id, "title": title, "body": markup, "createdAt": now, "updatedAt": now, "clock": clock]]
    }

    static func attachment(_ id: String, hash: String, byteCount: Int64, mediaType: String) -> [String: Any] {
        ["kind": "attachment", "attachment": [
            "id": id, "noteID": lyingNote, "position": 0, "blobHash": hash, "byteCount": byteCount, "mediaType": mediaType,
            "filename": "\(markup).jpg", "metadata": ["<b>camera</b>": markup], "createdAt": now, "updatedAt": now, "clock": clock(),
        ] as [String: Any]]
    }

    /// What the reasons given for refusing the first batch's lies mention, one for each kind of lie.
    static let refusalReasons = ["is not a lowercase UUID", "outside 0...", "ahead of this machine's clock", "unknown kind \"user\"",
                                 "unreadable change"]

    /// The first batch: every lie at once, with valid changes between them.
    var firstBatch: [[String: Any]] {
        [
            Self.note(Self.markup, title: "an id that is markup"),
            Self.note(Self.lyingNote, title: Self.markup),
            Self.attachment(Self.lyingTypeAttachment, hash: photoHash, byteCount: Int64(photo.count), mediaType: "text/javascript"),
            Self.attachment(Self.shortCountAttachment, hash: otherPhotoHash, byteCount: Int64(otherPhoto.count) - 100, mediaType: "image/jpeg"),
            Self.attachment(Self.hugeCountAttachment, hash: String(repeating: "e", count: 64), byteCount: 1 << 50, mediaType: "image/jpeg"),
            Self.note(Self.futureNote, title: "from the future", clock: Self.clock(Self.now + 40 * 365 * 24 * 3600 * 1000)),
            ["kind": "tombstone", "tombstone": ["entity": "user", "id": Self.lyingNote, "clock": Self.clock()]],
            ["kind": "attachment", "attachment": ["id": "not even a record"]],
            ["kind": "something-new"],
            Self.note(Self.afterTombstoneNote, title: "arrived after the bad tombstone"),
        ]
    }

    func batch(since: Int64) -> [String: Any] {
        if since == 0 {
            return ["peerID": "hostile-peer", "changes": firstBatch, "nextSequence": 1, "hasMore": true]
        }
        switch ending {
        case .stuck: return ["peerID": "hostile-peer", "changes": [], "nextSequence": since, "hasMore": true]
        case .endless: return ["peerID": "hostile-peer", "changes": [], "nextSequence": since + 1, "hasMore": true]
        }
    }

    /// The peer's routes: its feed, and its bytes served under a lying media type;
    /// `onBlobRequest` is called for every request for bytes.
    func router(onBlobRequest: @escaping @Sendable () -> Void = {}) -> Router<BasicRequestContext> {
        let peer = self
        let router = Router()
        router.get("sync/changes") { request, _ -> Response in
            let since = Int64(request.uri.queryParameters.get("since") ?? "0") ?? 0
            let json = try JSONSerialization.data(withJSONObject: peer.batch(since: since))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: json)))
        }
        router.get("blobs/sha256/:hash") { _, context -> Response in
            onBlobRequest()
            let hash = context.parameters.get("hash") ?? ""
            let bytes = hash == peer.photoHash ? peer.photo : hash == peer.otherPhotoHash ? peer.otherPhoto : Data()
            return Response(status: .ok, headers: [.contentType: "text/javascript"], body: .init(byteBuffer: ByteBuffer(data: bytes)))
        }
        return router
    }

    /// Runs the peer on a free loopback port for the duration of `body`.
    func serve(_ body: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await Self.serve(router(), body)
    }

    /// Runs `router` on a free loopback port for the duration of `body`.
    static func serve(_ router: Router<BasicRequestContext>, _ body: @escaping @Sendable (URL) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "hostile-peer"))
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "hostile-peer")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do {
                try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// Requests a peer received for bytes.
final class BlobRequests: Sendable {
    let count = Atomic<Int>(0)
}

@Suite("A hostile peer cannot lie its way in", .timeLimit(.minutes(3)))
struct HostilePeerTests {
    @Test("markup, lying types and counts, a clock decades ahead, unknown kinds and a stuck feed: skipped, counted, and nothing else harmed")
    func hostilePeerIsContained() async throws {
        let hostile = try HostilePeer(ending: .stuck)
        let base = try ServerFixture()
        try await hostile.serve { url in
            var fixture = base
            fixture.configuration.peers = [url]
            let store = try await fixture.store()

            // The round applies what is valid, skips the rest, and stops at the stuck cursor
            // with an error instead of asking forever.
            await #expect(throws: SyncError.self) { try await SyncRound(peer: Peer(url: url)).run(into: store) }
            #expect(try await store.syncCursor(forPeer: url.absoluteString) == 1, "the first batch was applied and its cursor kept")

            let notes = try await store.notes(limit: 50)
            #expect(Set(notes.map(\.id.rawValue)) == [HostilePeer.lyingNote, HostilePeer.afterTombstoneNote],
                    "the valid changes arrived, the refused ones did not")
            #expect(try await store.attachments(of: NoteID(rawValue: HostilePeer.lyingNote)).count == 2,
                    "the two attachments with a sane byte count arrived as records")

            // Local edits carry sane clock stamps: the future stamp was never adopted.
            let local = try await store.createNote(title: "mine")
            let stamp = try #require(try await store.changes(since: 0, limit: 100).changes.compactMap { change -> ClockStamp? in
                if case .note(let note) = change, note.note.id == local.id { return note.clock }
                return nil
            }.first)
            let milliseconds = try #require(Int64(stamp.rawValue.prefix(13)))
            #expect(abs(milliseconds - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "local stamp \(stamp)")

            try await fixture.test { client in
                // No page carries the peer's markup.
                for path in ["/", "/notes/\(HostilePeer.lyingNote)", "/notes/\(HostilePeer.afterTombstoneNote)"] {
                    let page = String(buffer: try await client.execute(uri: path, method: .get).body)
                    #expect(!page.contains("<script>alert"), "\(path) carries the peer's script")
                    #expect(!page.contains("<b>camera"), "\(path)")
                }
                // The lying media type: the bytes decide once they arrive.
                let original = try await client.execute(uri: "/api/attachments/\(HostilePeer.lyingTypeAttachment)/original", method: .get)
                #expect(original.status == .ok)
                #expect(original.headers[.contentType] == "image/jpeg")
                #expect(Data(buffer: original.body) == hostile.photo)
                let resource = try JSON.decode(AttachmentResource.self,
                                               try await client.execute(uri: "/api/attachments/\(HostilePeer.lyingTypeAttachment)", method: .get))
                #expect(resource.mediaType == "image/jpeg")
                // Fewer bytes announced than served: the fetch stops, nothing is stored.
                let short = try await client.execute(uri: "/api/attachments/\(HostilePeer.shortCountAttachment)/original", method: .get)
                #expect(short.status == .badGateway, "\(String(buffer: short.body))")
            }
            #expect(try await store.hasBlob(try #require(BlobHash(rawValue: hostile.otherPhotoHash))) == false, "nothing unverified is stored")
            let verification = try await store.verify()
            #expect(verification.isClean, "\(verification)")
        }
    }

    @Test("the first round reports every refused change with its reason")
    func refusedChangesAreReported() async throws {
        let hostile = try HostilePeer(ending: .endless)
        let fixture = try ServerFixture()
        try await hostile.serve { url in
            var round = SyncRound(peer: Peer(url: url))
            round.maxBatches = 50
            let report = try await round.run(into: try await fixture.store())
            #expect(report.batches == 50, "a feed that never ends still ends the round")
            #expect(report.applied.invalid == 6, "\(report.applied.problems)")
            let reasons = report.applied.problems.joined(separator: "\n")
            for expected in HostilePeer.refusalReasons {
                #expect(reasons.contains(expected), "no reason mentions \(expected): \(reasons)")
            }
            #expect(!reasons.contains("<script>"), "reasons quote the peer's text escaped and cut, never raw: \(reasons)")
        }
    }

    @Test("a server syncing continuously shows the refused changes in /sync/status and /metrics")
    func refusedChangesAreVisible() async throws {
        let hostile = try HostilePeer(ending: .stuck)
        try await hostile.serve { url in
            var fixture = try ServerFixture()
            fixture.configuration.peers = [url]
            fixture.configuration.syncInterval = .milliseconds(200)
            try await LiveServerTests.serve(fixture) { port, _ in
                var status: [String: Any] = [:]
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/sync/status")))
                    status = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                    if let first = (status["peers"] as? [[String: Any]])?.first, (first["invalidChanges"] as? Int ?? 0) > 0, first["lastError"] != nil { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                let peer = try #require((status["peers"] as? [[String: Any]])?.first)
                #expect(peer["invalidChanges"] as? Int == 6)
                #expect((peer["latestProblems"] as? [String])?.count == 6)
                #expect((peer["lastError"] as? String)?.contains("did not move past") == true, "the stuck feed is reported, not looped on")
                let (metrics, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/metrics")))
                #expect(String(decoding: metrics, as: UTF8.self).contains("attach_sync_invalid_changes{peer=\"\(url.absoluteString)\"} 6"))
            }
        }
    }

    @Test("a page larger than the round takes is asked for again with fewer changes, down to what fits")
    func oversizedBatchesShrink() async throws {
        let asked = Mutex<[Int]>([])
        let router = Router()
        router.get("sync/changes") { request, _ -> Response in
            let limit = Int(request.uri.queryParameters.get("limit") ?? "500") ?? 500
            asked.withLock { $0.append(limit) }
            // Each change carries 40 KiB of body: 500 of them are 20 MB, over the 16 MiB cap.
            let changes = (0..<limit).map { index -> [String: Any] in
                ["kind": "note", "note": [
                    "id": String(format: "77777777-7777-4777-8777-%012d", index), "title": "note \(index)",
                    "body": String(repeating: "b", count: 40 << 10), "createdAt": HostilePeer.now, "updatedAt": HostilePeer.now,
                    "clock": HostilePeer.clock(),
                ] as [String: Any]]
            }
            let json = try JSONSerialization.data(withJSONObject: ["peerID": "big-peer", "changes": changes,
                                                                   "nextSequence": limit, "hasMore": false])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: json)))
        }
        let fixture = try ServerFixture()
        try await HostilePeer.serve(router) { url in
            let report = try await SyncRound(peer: Peer(url: url)).run(into: try await fixture.store())
            #expect(report.applied.notesApplied == 250)
        }
        #expect(asked.withLock { $0 } == [500, 250], "the round asked again for half as many")
    }

    @Test("with a token, an anonymous request for a remote original is refused and never makes the server ask its peers")
    func anonymousRequestsFetchNothing() async throws {
        let hostile = try HostilePeer(ending: .stuck)
        let blobRequests = BlobRequests()
        let router = hostile.router { blobRequests.count.add(1, ordering: .relaxed) }
        let base = try ServerFixture(token: "owner-token")
        try await HostilePeer.serve(router) { url in
            var fixture = base
            fixture.configuration.peers = [url]
            let store = try await fixture.store()
            await #expect(throws: SyncError.self, "the records arrive, then the stuck feed ends the round") {
                try await SyncRound(peer: Peer(url: url)).run(into: store)
            }
            try await fixture.test { client in
                for path in ["/api/attachments/\(HostilePeer.lyingTypeAttachment)/original",
                             "/api/attachments/\(HostilePeer.lyingTypeAttachment)/thumbnail?size=200", "/blobs/sha256/\(hostile.photoHash)"] {
                    let status = try await client.execute(uri: path, method: .get).status
                    #expect(status == .unauthorized, "\(path)")
                }
            }
        }
        #expect(blobRequests.count.load(ordering: .relaxed) == 0, "no anonymous request reached the peer")
    }
}
