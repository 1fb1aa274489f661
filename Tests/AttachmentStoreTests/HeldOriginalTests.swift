@testable import AttachmentStore
import Crypto
import Foundation
import Testing
import TestSupport

/// Upload by hash: the store says whether it holds bytes, and attaches bytes it holds without
/// receiving them again.
@Suite("Held originals: bytes the store holds are attached by hash, never received twice", .timeLimit(.minutes(2)))
struct HeldOriginalTests {
    static func hash(_ data: Data) -> BlobHash {
        BlobHash(rawValue: SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())!
    }

    @Test("bytes an attachment holds are attached again by hash, with their facts, and read back byte-identical")
    func attachByHash() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
        let trip = try await store.createNote(title: "trip")
        let first = try await store.addAttachment(to: trip.id, data: photo, filename: "Dune.jpg")
        let hash = Self.hash(photo)
        #expect(try await store.holdsOriginal(hash))
        let album = try await store.createNote(title: "album")
        let again = try await store.addAttachment(to: album.id, holding: hash, filename: "again.jpg", metadata: ["from": "phone"],
                                                  byteCount: Int64(photo.count))
        #expect(again.blobHash == first.blobHash && again.mediaType == "image/jpeg" && again.image == first.image)
        #expect(again.filename == "again.jpg" && again.metadata == ["from": "phone"] && again.noteID == album.id)
        #expect(try await store.original(of: again.id).data() == photo)
        // Still held after the first attachment goes: the second keeps the bytes.
        try await store.deleteAttachment(first.id)
        _ = try await store.collectGarbage(olderThan: .zero)
        #expect(try await store.holdsOriginal(hash))
        #expect(try await store.verify().isClean)
    }

    @Test("bytes the store does not hold, or of another size, are refused with originalNotHeld and add nothing")
    func unknownBytesAreRefused() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
        let note = try await store.createNote(title: "n")
        let unknown = Self.hash(Data("never stored".utf8))
        #expect(try await store.holdsOriginal(unknown) == false)
        await #expect(throws: AttachmentStore.Error.originalNotHeld(unknown)) {
            try await store.addAttachment(to: note.id, holding: unknown, filename: "x.jpg")
        }
        _ = try await store.addAttachment(to: note.id, data: photo, filename: "Dune.jpg")
        let hash = Self.hash(photo)
        await #expect(throws: AttachmentStore.Error.originalNotHeld(hash)) {
            try await store.addAttachment(to: note.id, holding: hash, filename: "x.jpg", byteCount: Int64(photo.count) + 1)
        }
        await #expect {
            try await store.addAttachment(to: note.id, holding: hash, filename: "a\u{202E}b.jpg")
        } throws: { error in
            guard case AttachmentStore.Error.invalidArgument = error else { return false }
            return true
        }
        #expect(try await store.attachments(of: note.id).count == 1)
    }

    @Test("a resumable upload created with the digest of held bytes is finished at once; of other bytes it waits for them")
    func uploadOfHeldBytesFinishesAtOnce() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
        let note = try await store.createNote(title: "n")
        _ = try await store.addAttachment(to: note.id, data: photo, filename: "Dune.jpg")
        let upload = try await store.createUpload(for: note.id, filename: "copy.jpg", length: Int64(photo.count), wholeFile: Self.hash(photo))
        let attachment = try #require(upload.attachment)
        #expect(upload.offset == upload.length)
        #expect(try await store.attachment(attachment).filename == "copy.jpg")
        #expect(try await store.resumableUpload(upload.id).attachment == attachment)
        let other = try await store.createUpload(for: note.id, filename: "other.jpg", length: 10, wholeFile: Self.hash(Data(count: 10)))
        #expect(other.attachment == nil && other.offset == 0)
        #expect(try await store.attachments(of: note.id).count == 2)
        #expect(try await store.verify().isClean)
    }
}
