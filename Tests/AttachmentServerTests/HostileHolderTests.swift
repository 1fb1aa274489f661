import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import Testing
import TestSupport

/// Peers that claim to hold a blob they do not, written for the test: the storage budget must
/// not evict an original on their word.
@Suite("A peer's claim to hold a blob is checked before anything is evicted", .timeLimit(.minutes(2)))
struct HostileHolderTests {
    /// How the peer answers `HEAD` and ranged `GET` for a blob of `photo`.
    enum Lie: String, CaseIterable, Sendable {
        /// 200 to every HEAD, with a size one byte off.
        case wrongSize
        /// The right size, but another blob's tag.
        case wrongTag
        /// Right HEAD, and zeros for the bytes asked for.
        case wrongBytes
        /// Right HEAD, and the whole blob's worth of zeros, ignoring `Range`.
        case ignoresRange
        /// Not a lie: the peer holds the bytes (the control).
        case honest
    }

    static func router(_ lie: Lie, photo: Data, hash: String) -> Router<BasicRequestContext> {
        let router = Router()
        router.head("blobs/sha256/:hash") { _, context -> Response in
            let tag = lie == .wrongTag ? String(repeating: "0", count: 64) : context.parameters.get("hash") ?? ""
            let size = lie == .wrongSize ? photo.count + 1 : photo.count
            return Response(status: .ok, headers: [.eTag: "\"\(tag)\"", .contentLength: String(size)])
        }
        router.get("blobs/sha256/:hash") { request, _ -> Response in
            let text = request.headers[.range] ?? ""
            let bounds = text.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            guard lie != .ignoresRange, bounds.count == 2 else {
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: [UInt8](repeating: 0, count: photo.count))))
            }
            let slice = lie == .honest ? [UInt8](photo[bounds[0]...bounds[1]]) : [UInt8](repeating: 0, count: bounds[1] - bounds[0] + 1)
            return Response(status: .partialContent, headers: [.contentRange: "bytes \(bounds[0])-\(bounds[1])/\(photo.count)"],
                            body: .init(byteBuffer: ByteBuffer(bytes: slice)))
        }
        return router
    }

    @Test("a peer lying about the size, the tag or the bytes keeps the original here; one that holds it lets it go", arguments: Lie.allCases)
    func claimsAreChecked(_ lie: Lie) async throws {
        let file = try Corpus.file("good/Dune.jpg")
        let photo = try Data(contentsOf: file)
        let hash = Files.sha256(photo)
        try await HostilePeer.serve(Self.router(lie, photo: photo, hash: hash)) { url in
            var configuration = AttachmentStore.Configuration()
            configuration.remoteBlobSource = BlobFetcher(peers: [Peer(url: url)])
            configuration.evictionGrace = 0
            let fixture = try await StoreFixture("holder-\(lie.rawValue)", configuration: configuration)
            guard fixture.store.blobPlacement == .files else { return }
            let note = try await fixture.store.createNote(title: "mine")
            let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: file)
            try await fixture.store.setStorageBudget(StorageBudget(maxLocalBytes: 0))
            let report = try await fixture.store.enforceStorageBudget()
            if lie == .honest {
                #expect(report.originalsEvicted == 1)
                #expect(try await fixture.store.attachment(attachment.id).state == .evicted)
            } else {
                #expect(report.originalsEvicted == 0 && report.onlyCopiesKept == 1, "\(lie)")
                #expect(try await fixture.store.attachment(attachment.id).state == .present)
                #expect(try await fixture.store.original(of: attachment.id).data() == photo)
            }
        }
    }
}
