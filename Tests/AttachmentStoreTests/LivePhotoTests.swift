import AttachmentStore
import Crypto
import Foundation
import Testing
import TestSupport

/// A Live Photo — a still and a clip that share the identifier the phone gave them — is one
/// attachment with two originals, whichever half comes first; both are kept byte for byte,
/// referenced, counted and collected as originals.
@Suite("Live Photos", .timeLimit(.minutes(2)))
struct LivePhotoTests {
    static func file(_ name: String) throws -> URL { try Corpus.file("live/\(name)") }
    static func sha256(_ url: URL) throws -> String { SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined() }

    /// Reads all of `content`'s bytes.
    static func bytes(_ content: AttachmentContent) async throws -> Data { try await content.data() }

    @Test func aClipAddedAfterItsStillJoinsIt() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "live")
        let still = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0001.HEIC"))
        #expect(still.motion == nil)
        #expect(still.contentIdentifier == "1F6C3E2A-5B7D-4C11-9E0F-2A3B4C5D6E7F")
        let joined = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0001.MOV"))

        #expect(joined.id != still.id, "the pair is the attachment of the half added last")
        await #expect(throws: AttachmentStore.Error.attachmentNotFound(still.id.rawValue)) { _ = try await store.attachment(still.id) }
        #expect(joined.position == 0)
        #expect(joined.mediaType == "image/heic")
        #expect(joined.filename == "IMG_0001.HEIC")
        let motion = try #require(joined.motion)
        #expect(motion.mediaType == "video/quicktime")
        #expect(motion.filename == "IMG_0001.MOV")
        #expect(motion.durationMilliseconds == 2500)
        #expect(motion.state == .present)
        #expect(motion.byteCount == Int64(try Data(contentsOf: try Self.file("IMG_0001.MOV")).count))
        #expect(try await store.attachments(of: note.id).map(\.id) == [joined.id])
        try await Self.expectBothOriginals(of: joined.id, in: store, still: "IMG_0001.HEIC", clip: "IMG_0001.MOV")
        #expect(try await store.verify().isClean)
    }

    @Test func aStillAddedAfterItsClipMakesThePairInTheClipsPlace() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "live")
        let first = try await store.addAttachment(to: note.id, data: Data("before".utf8), filename: "before.txt")
        let clip = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0002.MOV"))
        let after = try await store.addAttachment(to: note.id, data: Data("after".utf8), filename: "after.txt")
        #expect(clip.isVideo)
        let joined = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0002.JPG"))

        #expect(joined.position == 1, "the pair takes the clip's place")
        #expect(abs(joined.createdAt.timeIntervalSince(clip.createdAt)) < 0.001, "and its creation time")
        #expect(joined.mediaType == "image/jpeg")
        #expect(joined.image?.width == 1440)
        #expect(joined.motion?.blobHash.rawValue == (try Self.sha256(try Self.file("IMG_0002.MOV"))))
        #expect(try await store.attachments(of: note.id).map(\.id) == [first.id, joined.id, after.id])
        try await Self.expectBothOriginals(of: joined.id, in: store, still: "IMG_0002.JPG", clip: "IMG_0002.MOV")
        // The still's thumbnail.
        let thumbnail = try await store.thumbnail(for: joined.id)
        #expect(thumbnail.width == 200)
        #expect(try await store.verify().isClean)
    }

    @Test func bothHalvesInOneBatchAreOneAttachment() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "batch")
        let outcomes = try await fixture.store.addAttachments(to: note.id, fromFiles: [try Self.file("IMG_0001.MOV"), try Self.file("IMG_0001.HEIC")])
        let ids = try outcomes.map { try $0.get().id }
        let attachments = try await fixture.store.attachments(of: note.id)
        #expect(attachments.map(\.id) == [ids[1]], "the second half's attachment is the pair")
        #expect(attachments.first?.mediaType == "image/heic")
        #expect(attachments.first?.motion?.mediaType == "video/quicktime")
    }

    @Test func halvesInDifferentNotesOrOfDifferentPhotosStayApart() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let one = try await store.createNote(title: "one")
        let two = try await store.createNote(title: "two")
        _ = try await store.addAttachment(to: one.id, fromFile: try Self.file("IMG_0001.HEIC"))
        _ = try await store.addAttachment(to: two.id, fromFile: try Self.file("IMG_0001.MOV"))
        _ = try await store.addAttachment(to: one.id, fromFile: try Self.file("IMG_0002.MOV"))
        #expect(try await store.attachments(of: one.id).count == 2)
        #expect(try await store.attachments(of: one.id).allSatisfy { $0.motion == nil })
        #expect(try await store.attachments(of: two.id).count == 1)
    }

    @Test func gcKeepsTheClipAndCollectsBothOnceTheAttachmentIsGone() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "live")
        _ = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0001.MOV"))
        let joined = try await store.addAttachment(to: note.id, fromFile: try Self.file("IMG_0001.HEIC"))
        let kept = try await store.collectGarbage(olderThan: .zero)
        #expect(kept.blobs == 0, "the clip, no longer the attachment's own bytes, is still referenced")
        try await Self.expectBothOriginals(of: joined.id, in: store, still: "IMG_0001.HEIC", clip: "IMG_0001.MOV")
        let statistics = try await store.statistics()
        let bothSizes = try [Self.file("IMG_0001.HEIC"), Self.file("IMG_0001.MOV")].reduce(Int64(0)) { $0 + Int64(try Data(contentsOf: $1).count) }
        #expect(statistics.referencedBytes == bothSizes, "the clip counts as referenced")

        try await store.deleteAttachment(joined.id)
        let collected = try await store.collectGarbage(olderThan: .zero)
        #expect(collected.blobs == 2)
        #expect(try await store.verify().isClean)
    }

    /// A note of `store` holding the Live Photo IMG_0001, its still added first: the attachment.
    static func livePhoto(in store: AttachmentStore) async throws -> StoredAttachment {
        let note = try await store.createNote(title: "live")
        _ = try await store.addAttachment(to: note.id, fromFile: try file("IMG_0001.HEIC"))
        return try await store.addAttachment(to: note.id, fromFile: try file("IMG_0001.MOV"))
    }

    @Test func otherBytesInPlaceOfTheStillLeaveTheClipBehind() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let joined = try await Self.livePhoto(in: store)
        let replaced = try await store.replaceAttachmentData(joined.id, fromFile: try Corpus.file("special/baseline.jpg"))
        #expect(replaced.motion == nil)
        #expect(replaced.contentIdentifier == nil)
        #expect(try await store.collectGarbage(olderThan: .zero).blobs == 2)
        await #expect(throws: AttachmentStore.Error.notALivePhoto(joined.id)) { _ = try await store.motionOriginal(of: joined.id) }
        #expect(try await store.verify().isClean)
    }

    @Test func theClipPlaysThroughThePlayableCopy() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let joined = try await Self.livePhoto(in: store)
        let playable = try await store.playableVideo(for: joined.id)
        #expect(playable.originalHash == joined.motion?.blobHash)
        let head = try FileHandle(forReadingFrom: URL(filePath: playable.path)).read(upToCount: 12) ?? Data()
        #expect(head.dropFirst(4).prefix(4) == Data("ftyp".utf8))
    }

    /// The still's and the clip's bytes, each exactly the file it was added from.
    static func expectBothOriginals(of id: AttachmentID, in store: AttachmentStore, still: String, clip: String) async throws {
        let stillContent = try await store.original(of: id)
        #expect(try await bytes(stillContent) == (try Data(contentsOf: try file(still))))
        #expect(stillContent.filename == still)
        let clipContent = try await store.motionOriginal(of: id)
        #expect(try await bytes(clipContent) == (try Data(contentsOf: try file(clip))))
        #expect(clipContent.filename == clip)
        #expect(clipContent.mediaType == "video/quicktime")
    }
}

/// An Android motion photo is one original, the photo, whose clip inside it plays.
@Suite("Android motion photos in the store", .timeLimit(.minutes(2)))
struct MotionPhotoAttachmentTests {
    @Test func aMotionPhotoKeepsItsBytesShowsItsPictureAndPlaysItsClip() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "pixel")
        let source = try Corpus.file("live/PXL_20240501_102030.MP.jpg")
        let photo = try await store.addAttachment(to: note.id, fromFile: source)
        #expect(photo.mediaType == "image/jpeg")
        #expect(photo.hasMotion && !photo.isLivePhoto)
        let offset = try #require(photo.image?.embeddedVideoOffset)
        let clip = try Data(contentsOf: try Corpus.file("video/clip-h264.mp4"))
        #expect(try Data(contentsOf: source).dropFirst(offset) == clip)
        #expect(try await store.thumbnail(for: photo.id).width == 200, "the picture's thumbnail")

        let playable = try await store.playableVideo(for: photo.id)
        let copy = try Data(contentsOf: URL(filePath: playable.path))
        #expect(copy.dropFirst(4).prefix(4) == Data("ftyp".utf8))
        #expect(copy.count > clip.count / 2, "the clip's streams, copied")
        #expect(try await store.original(of: photo.id).data() == (try Data(contentsOf: source)), "the original is never changed")
        #expect(try await store.verify().isClean)
    }
}
