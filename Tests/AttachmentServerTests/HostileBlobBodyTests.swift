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
    /// Bytes the hostile peer offers at most before it ends the body by itself: far more than the
    /// test could take in before its time limit, so only the fetch hanging up ends it sooner.
    ///
    /// What the peer's writer has *offered* is not what crossed the wire: NIO queues a writer's
    /// chunks (here all views of one buffer) ahead of the socket, so tens of megabytes are offered
    /// in the milliseconds before the fetch hangs up. The test therefore asserts how the body
    /// ended (the fetch hung up) and what the fetch counted, not the peer's tally.
    static let peerLimit = 64 << 30

    @Test("a chunked body running past the record's size is cut there: the fetch fails naming the peer, nothing is stored, the partial file never exceeds the blob")
    func endlessChunkedBodyIsCutAtTheRecordSize() async throws {
        let (_, local, hash, byteCount) = try await BlobFetcherTests.remoteBlob("special/seed-3.7mb.jpg")
        let store = try await local.store()
        let sent = Atomic<Int>(0)
        let hungUp = Atomic<Bool>(false)
        let router = Router()
        router.get("blobs/sha256/:hash") { _, _ -> Response in
            // Chunked (no length announced), 64 KiB at a time, far past the blob's size.
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody { writer in
                let chunk = ByteBuffer(repeating: 0x5A, count: 64 << 10)
                do {
                    while sent.load(ordering: .relaxed) < Self.peerLimit {
                        try await writer.write(chunk)
                        sent.add(chunk.readableBytes, ordering: .relaxed)
                    }
                } catch {
                    hungUp.store(true, ordering: .relaxed)  // the fetch closed the connection
                    throw error
                }
                try await writer.finish(nil)
            })
        }
        try await HostilePeer.serve(router) { url in
            let fetcher = BlobFetcher(peers: [Peer(url: url)])
            let error = await #expect(throws: SyncError.self) { try await fetcher.fetch(hash, byteCount: byteCount, into: store) }
            #expect(String(describing: error).contains(url.absoluteString), "the error names the peer: \(String(describing: error))")
            #expect(String(describing: error).contains("for a blob of \(byteCount)"), "\(String(describing: error))")
            // What the fetch took in before stopping: the blob and at most one write step (a MiB) past it.
            let counted = String(describing: error).firstMatch(of: /sent (\d+) bytes/).flatMap { Int64($0.1) }
            #expect(counted.map { $0 > byteCount && $0 <= byteCount + (2 << 20) } == true, "\(String(describing: error))")
        }
        let endedByHangUp = hungUp.load(ordering: .relaxed)
        #expect(endedByHangUp, "the fetch hung up; the body did not end by itself")
        #expect(try await store.hasBlob(hash) == false)
        let partial = local.configuration.storeDirectory.appending(path: "tmp/fetch-\(hash.rawValue).part").path(percentEncoded: false)
        if let size = try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int {
            #expect(Int64(size) <= byteCount, "the partial file holds \(size) bytes of a \(byteCount)-byte blob")
        }
        let verification = try await store.verify()
        #expect(verification.isClean, "\(verification)")
    }
}
