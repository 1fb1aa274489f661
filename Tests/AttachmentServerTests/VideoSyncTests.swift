@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// A video that arrives by sync is a record at once and a poster when thumbnails are fetched;
/// its bytes move only when someone opens it.
@Suite("Videos by sync", .serialized, .timeLimit(.minutes(3)))
struct VideoSyncTests {
    @Test func fetchingThumbnailsBringsAVideosPosterAndNotTheVideo() async throws {
        let peer = try ServerFixture()
        let peerStore = try await peer.store()
        let note = try await peerStore.createNote(title: "a clip from the phone")
        let clip = try Corpus.file("video/clip-hevc.mov")
        let recorded = try await peerStore.addAttachment(to: note.id, fromFile: clip)

        try await LiveServerTests.serve(peer) { port, _ in
            let (store, folder) = try await SyncingStore.pulling(fromPort: port, label: "video-sync", fetchMode: .thumbnails) { store in
                guard let arrived = try? await store.attachment(recorded.id) else { return false }
                return await store.hasCachedThumbnail(for: arrived)
            }
            defer { _ = folder }

            let arrived = try await store.attachment(recorded.id)
            #expect(arrived.mediaType == "video/quicktime")
            #expect(arrived.image == Attachment.ImageInfo(width: 1280, height: 720, orientation: 6, durationMilliseconds: 2500), "the playing time travels with the record")
            #expect(arrived.availability == .remote, "the video's bytes stay on the peer")
            let poster = try await store.thumbnail(for: recorded.id)
            #expect(poster.isProvisional && (poster.width, poster.height) == (113, 200))
            #expect(try await store.attachment(recorded.id).availability == .remote, "showing the poster fetched nothing")

            // Opened: the bytes arrive, byte for byte, and the store makes its own poster.
            var original = Data()
            for try await chunk in try await store.originalStream(for: recorded.id) { original.append(contentsOf: chunk.bytes) }
            #expect(original == (try Data(contentsOf: clip)))
            let own = try await store.thumbnail(for: recorded.id)
            #expect(!own.isProvisional && (own.width, own.height) == (113, 200))
        }
    }
}
