@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The disk cache writes without `fsync` and trusts a file only through its trailer.
@Suite("Thumbnail disk cache", .timeLimit(.minutes(2)))
struct ThumbnailDiskCacheTests {
    static func configuration() -> AttachmentStore.Configuration {
        var configuration = AttachmentStore.Configuration()
        configuration.thumbnails.generateAfterImport = false
        return configuration
    }

    /// A store with one photo whose thumbnail is rendered and on disk, and that thumbnail.
    static func storeWithCachedThumbnail() async throws -> (StoreFixture, StoredAttachment, Thumbnail, String) {
        let fixture = try await StoreFixture(configuration: configuration())
        let note = try await fixture.store.createNote(title: "disk cache")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/seed-3.7mb.jpg"))
        let thumbnail = try await fixture.store.thumbnail(for: photo.id)
        await fixture.store.waitForBackgroundWork()
        let key = ThumbnailKey(hash: photo.blobHash, size: fixture.store.configuration.thumbnails.defaultSize)
        return (fixture, photo, thumbnail, fixture.store.thumbnails.disk.path(for: key))
    }

    @Test("a thumbnail read back from disk by a fresh store is byte-identical, with its type and size, and renders nothing")
    func diskHitNeedsNoRender() async throws {
        let (fixture, photo, thumbnail, _) = try await Self.storeWithCachedThumbnail()
        let reopened = try await AttachmentStore.open(at: fixture.store.directory, configuration: fixture.store.configuration)
        let again = try await reopened.thumbnail(for: photo.id)
        #expect(again == thumbnail)
        #expect(reopened.thumbnailStatistics.diskHits == 1)
        #expect(reopened.thumbnailStatistics.rendersStarted == 0)
    }

    @Test("a torn cache file is a miss: the thumbnail is rendered again, identical, and the file replaced", arguments: [
        "truncated", "zeroed", "byte flipped", "trailer only", "empty", "old format",
    ])
    func tornFileIsRenderedAgain(damage: String) async throws {
        let (fixture, photo, thumbnail, path) = try await Self.storeWithCachedThumbnail()
        var file = try Data(contentsOf: URL(filePath: path))
        switch damage {
        case "truncated": file = file.prefix(file.count / 2)
        case "zeroed": file = Data(count: file.count)
        case "byte flipped": file[file.count / 3] ^= 0x01
        case "trailer only": file = file.suffix(ThumbnailFileTrailer.size)
        case "empty": file = Data()
        default: file = thumbnail.data   // a v1 file: the bytes without a trailer
        }
        try file.write(to: URL(filePath: path))

        let reopened = try await AttachmentStore.open(at: fixture.store.directory, configuration: fixture.store.configuration)
        #expect(try await reopened.thumbnail(for: photo.id) == thumbnail)
        #expect(reopened.thumbnailStatistics.diskHits == 0)
        #expect(reopened.thumbnailStatistics.rendersStarted == 1)
        await reopened.waitForBackgroundWork()
        #expect(ThumbnailFileTrailer.thumbnail(from: try Data(contentsOf: URL(filePath: path))) == thumbnail)
    }

    @Test("a trailer round-trips the type and size, and refuses a wrong magic, an unknown type code or a wrong length")
    func trailerRoundTrip() throws {
        let thumbnail = Thumbnail(data: Data((0..<300).map { UInt8($0 % 251) }), mediaType: "image/webp", width: 200, height: 133)
        let trailer = try #require(ThumbnailFileTrailer(of: thumbnail))
        let file = thumbnail.data + trailer.bytes
        #expect(trailer.bytes.count == ThumbnailFileTrailer.size)
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == thumbnail)
        for index in [0, 4, 5, 16] {
            var bad = file
            bad[thumbnail.data.count + index] ^= 0x7F
            #expect(ThumbnailFileTrailer.thumbnail(from: bad) == nil, "byte \(index) of the trailer changed")
        }
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data([1]), mediaType: "image/gif", width: 1, height: 1)) == nil)
    }
}
