@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
import Testing
import TestSupport

/// `BlobFetcher` against a real peer over loopback: one transfer per blob, and its events.
@Suite("Blob fetcher", .timeLimit(.minutes(3)))
struct BlobFetcherTests {
    /// A peer holding `corpusPath`, and a second store that knows the blob only as a record.
    static func remoteBlob(_ corpusPath: String) async throws -> (peer: ServerFixture, local: ServerFixture, hash: BlobHash, byteCount: Int64) {
        let peer = try ServerFixture()
        let peerStore = try await peer.store()
        let note = try await peerStore.createNote(title: "on the peer")
        let attachment = try await peerStore.addAttachment(to: note.id, fromFile: try Corpus.file(corpusPath))
        let local = try ServerFixture()
        _ = try await local.store().apply(try await peerStore.changes(since: 0))
        return (peer, local, attachment.blobHash, attachment.byteCount)
    }

    /// The peer's own count of blob bytes it has served, from `GET /sync/status`.
    static func bytesServed(port: Int) async throws -> Int64? {
        let response = try await RawHTTPConnection.with(port: port) { write, read in
            try await write(LiveServerTests.requestHead("GET", "/sync/status", []))
            return try await read()
        }
        let body = try #require(response?.body)
        return try JSONDecoder().decode(SyncRoutes.Status.self, from: body).blobBytesServed
    }

    static func fetcher(port: Int) throws -> BlobFetcher {
        BlobFetcher(peers: [Peer(url: try #require(URL(string: "http://127.0.0.1:\(port)")))])
    }

    @Test("five concurrent fetches of one remote blob share one transfer: the peer serves its bytes once")
    func concurrentFetchesShareOneTransfer() async throws {
        let (served, local, hash, byteCount) = try await Self.remoteBlob("special/large-16mb.jpg")
        var peer = served
        peer.configuration.peerBandwidth = 8 << 20  // about 2 s, so every fetch starts while the first is under way
        let store = try await local.store()
        try await LiveServerTests.serve(peer) { port, _ in
            let fetcher = try Self.fetcher(port: port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { try await fetcher.fetch(hash, byteCount: byteCount, into: store) } }
                try await group.waitForAll()
            }
            #expect(try await store.hasBlob(hash))
            #expect(fetcher.bytesReceived == byteCount)
            #expect(try await Self.bytesServed(port: port) == byteCount)
        }
        let file = try await store.blobFile(hash)
        #expect(try Files.sha256(file.url) == hash.rawValue)
        withExtendedLifetime(local) {}
    }

    @Test("the event stream of a fetch yields progress from zero up to the total, then completed")
    func eventsAreProgressThenCompleted() async throws {
        let (peer, local, hash, byteCount) = try await Self.remoteBlob("special/seed-3.7mb.jpg")
        let store = try await local.store()
        try await LiveServerTests.serve(peer) { port, _ in
            let fetcher = try Self.fetcher(port: port)
            var events: [FetchEvent] = []
            for await event in fetcher.events(for: hash, byteCount: byteCount, into: store) { events.append(event) }
            #expect(events.last == .completed)
            let progress = events.dropLast().compactMap { event -> (received: Int64, total: Int64)? in
                guard case .progress(let received, let total) = event else { return nil }
                return (received, total)
            }
            #expect(progress.count == events.count - 1, "only progress before the end: \(events)")
            #expect(progress.count >= 2, "a 3.7 MB transfer reports more than its start")
            #expect(progress.first?.received == 0)
            #expect(progress.last?.received == byteCount)
            #expect(progress.allSatisfy { $0.total == byteCount })
            #expect(progress.map(\.received) == progress.map(\.received).sorted(), "progress never goes back")
            #expect(try await store.hasBlob(hash))
        }
        withExtendedLifetime(local) {}
    }
}
