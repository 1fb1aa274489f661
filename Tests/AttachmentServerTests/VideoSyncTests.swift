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
            let peerURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let local = try TemporaryDirectory("video-sync")
            let peers = [Peer(url: peerURL)]
            let fetcher = BlobFetcher(peers: peers)
            var configuration = AttachmentStore.Configuration()
            configuration.remoteBlobSource = fetcher
            let store = try await AttachmentStore.create(at: local.appending("store"), configuration: configuration)
            var sync = PeerSyncService.Configuration(peers: peers)
            sync.interval = .milliseconds(200)
            sync.fetchMode = .thumbnails
            let service = PeerSyncService(store: store, fetcher: fetcher, configuration: sync)
            let syncing = Task { try await service.run() }
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if let arrived = try? await store.attachment(recorded.id), await store.hasCachedThumbnail(for: arrived) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            syncing.cancel()
            _ = await syncing.result

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
