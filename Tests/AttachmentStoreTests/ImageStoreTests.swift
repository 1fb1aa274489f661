import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Key-value image store", .timeLimit(.minutes(3)))
struct ImageStoreTests {
    @Test("set, get from memory and from disk, replace and delete")
    func setGetDelete() async throws {
        let fixture = try await StoreFixture()
        let first = try Data(contentsOf: Corpus.file("good/Aqua.jpg"))
        let second = try Data(contentsOf: Corpus.file("good/Dune.jpg"))
        #expect(try await fixture.store.image(forKey: "avatar") == nil)

        try await fixture.store.setImage(first, forKey: "avatar")
        #expect(try await fixture.store.image(forKey: "avatar") == first)

        let reopened = try await fixture.reopen()
        #expect(try await reopened.image(forKey: "avatar") == first, "read back from disk by a new store value")

        try await fixture.store.setImage(second, forKey: "avatar")
        #expect(try await fixture.store.image(forKey: "avatar") == second)

        try await fixture.store.deleteImage(forKey: "avatar")
        #expect(try await fixture.store.image(forKey: "avatar") == nil)
        #expect(try await fixture.reopen().image(forKey: "avatar") == nil)
        try await fixture.store.deleteImage(forKey: "never-set")
    }

    @Test("deleting a key removes its bytes from disk unless an attachment shares them")
    func deleteRemovesUnsharedBytes() async throws {
        let fixture = try await StoreFixture()
        let shared = try Data(contentsOf: Corpus.file("good/Aqua.jpg"))
        let alone = try Data(contentsOf: Corpus.file("good/Dune.jpg"))
        let note = try await fixture.store.createNote(title: "shares bytes")
        _ = try await fixture.store.addAttachment(to: note.id, data: shared, filename: "aqua.jpg")
        try await fixture.store.setImage(shared, forKey: "shared")
        try await fixture.store.setImage(alone, forKey: "alone")
        #expect(try await fixture.blobAndTemporaryFiles().count == 2)

        try await fixture.store.deleteImage(forKey: "alone")
        try await fixture.store.deleteImage(forKey: "shared")
        #expect(try await fixture.blobAndTemporaryFiles().count == 1)
        #expect(try await fixture.store.verify().isClean)
    }

    @Test("a key whose bytes vanished from disk throws instead of returning nothing")
    func missingBytesThrow() async throws {
        let fixture = try await StoreFixture()
        try await fixture.store.setImage(Data("not really a picture".utf8), forKey: "gone")
        try await fixture.destroyStoredBytes()
        let fresh = try await fixture.reopen()
        await #expect(throws: AttachmentStore.Error.self) { try await fresh.image(forKey: "gone") }
    }
}
