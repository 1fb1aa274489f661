import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
import TestSupport

/// A peer whose blob answers carry no `Content-Length` and never end: the fetch must stop at the
/// record's size by itself, with nothing stored and no more than the blob on disk.
@Suite("A peer streaming an endless blob body", .timeLimit(.minutes(3)))
struct HostileBlobBodyTests {
    /// Bytes the hostile peer sends at most before it gives up by itself (the test's own bound).
    static let peerLimit = 256 << 20

    @Test("a chunked body running past the record's size is cut there: the fetch fails naming the peer, nothing is stored, the partial file never exceeds the blob")
    func endlessChunkedBodyIsCutAtTheRecordSize() async throws {
        let (_, local, hash, byteCount) = try await BlobFetcherTests.remoteBlob("special/seed-3.7mb.jpg")
        let store = try await local.store()
        let sent = Atomic<Int>(0)
        let router = Router()
        router.get("blobs/sha256/:hash") { _, _ -> Response in
            // Chunked (no length announced), 64 KiB at a time, far past the blob's size.
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody { writer in
                let chunk = ByteBuffer(repeating: 0x5A, count: 64 << 10)
                while sent.load(ordering: .relaxed) < Self.peerLimit {
                    try await writer.write(chunk)
                    sent.add(chunk.readableBytes, ordering: .relaxed)
                }
                try await writer.finish(nil)
            })
        }
        try await HostilePeer.serve(router) { url in
            let fetcher = BlobFetcher(peers: [Peer(url: url)])
            let error = await #expect(throws: SyncError.self) { try await fetcher.fetch(hash, byteCount: byteCount, into: store) }
            #expect(String(describing: error).contains(url.absoluteString), "the error names the peer: \(String(describing: error))")
            #expect(String(describing: error).contains("for a blob of \(byteCount)"), "\(String(describing: error))")
        }
        #expect(sent.load(ordering: .relaxed) < Self.peerLimit, "the fetch stopped reading; the peer did not run out by itself")
        #expect(try await store.hasBlob(hash) == false)
        let partial = local.configuration.storeDirectory.appending(path: "tmp/fetch-\(hash.rawValue).part").path(percentEncoded: false)
        if let size = try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int {
            #expect(Int64(size) <= byteCount, "the partial file holds \(size) bytes of a \(byteCount)-byte blob")
        }
        let verification = try await store.verify()
        #expect(verification.isClean, "\(verification)")
    }
}
