import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The trash travels: a delete on one peer is a trash on all, a restore on any peer restores
/// on all, and only a purge (after the retention) deletes everywhere.
@Suite("Trash that travels: A ↔ B ↔ C", .timeLimit(.minutes(2)))
struct TrashSyncTests {
    /// Three stores in a line, each fetching bytes from its neighbour towards A, keeping the trash one second.
    private static func line() async throws -> (StoreFixture, StoreFixture, StoreFixture) {
        var configuration = AttachmentStore.Configuration()
        configuration.trashRetention = .seconds(1)
        let a = try await StoreFixture("a", configuration: configuration)
        configuration.remoteBlobSource = InProcessPeer(peer: a.store)
        let b = try await StoreFixture("b", configuration: configuration)
        configuration.remoteBlobSource = InProcessPeer(peer: b.store)
        let c = try await StoreFixture("c", configuration: configuration)
        return (a, b, c)
    }

    /// One round both ways along A ↔ B ↔ C.
    private static func syncAll(_ a: AttachmentStore, _ b: AttachmentStore, _ c: AttachmentStore) async throws {
        try await SyncCoreTests.pull(b, from: a)
        try await SyncCoreTests.pull(c, from: b)
        try await SyncCoreTests.pull(b, from: c)
        try await SyncCoreTests.pull(a, from: b)
    }

    @Test("deleted on A, restored from the trash on C: the note and its originals are back on all three; a purge after the window frees the bytes everywhere")
    func deleteOnARestoreOnC() async throws {
        let (a, b, c) = try await Self.line()
        let stores = [a.store, b.store, c.store]
        let note = try await a.store.createNote(title: "Wedding", body: "the best ones")
        let photo = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Garden.jpg"))
        let bytes = try Data(contentsOf: Corpus.file("good/Garden.jpg"))
        try await Self.syncAll(a.store, b.store, c.store)
        #expect(try await c.store.original(of: photo.id).data() == bytes, "C fetched the original through B")

        try await a.store.moveNoteToTrash(note.id)
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            #expect(try await store.notes().isEmpty, "in the trash on every peer")
            #expect(try await store.trash().map(\.id) == [note.id.rawValue])
        }

        try await c.store.restoreFromTrash(note.id.rawValue)
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            #expect(try await store.trash().isEmpty)
            #expect(try await store.note(note.id).body == "the best ones")
            #expect(try await store.attachments(of: note.id).map(\.id) == [photo.id])
            #expect(try await store.original(of: photo.id).data() == bytes)
        }

        // Deleted again, on B; past the window B's gc purges it, and the tombstone frees the bytes on A and C too.
        try await b.store.moveNoteToTrash(note.id)
        try await Self.syncAll(a.store, b.store, c.store)
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(try await b.store.collectGarbage(olderThan: .zero).trashedNotesPurged == 1)
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            _ = try await store.collectGarbage(olderThan: .zero)
            #expect(try await store.trash().isEmpty)
            #expect(try await !store.hasBlob(photo.blobHash))
            await #expect(throws: AttachmentStore.Error.self) { try await store.restoreFromTrash(note.id.rawValue) }
            #expect(try await store.verify().isClean)
        }
    }

    @Test("an edit and a move to the trash made apart both hold: the trash state is the later change's, the text keeps the edit, and no conflict copy is made")
    func editConcurrentWithTrash() async throws {
        let (a, b, c) = try await Self.line()
        let stores = [a.store, b.store, c.store]
        let note = try await a.store.createNote(title: "Plan", body: "v1")
        try await Self.syncAll(a.store, b.store, c.store)
        try await a.store.moveNoteToTrash(note.id)
        try await Task.sleep(for: .milliseconds(5))
        _ = try await c.store.updateNote(note.id, body: "typed on the phone after the delete")
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            #expect(try await store.note(note.id).body == "typed on the phone after the delete", "the later edit takes it out of the trash")
        }

        _ = try await c.store.updateNote(note.id, body: "one more line")
        try await Task.sleep(for: .milliseconds(5))
        try await a.store.moveNoteToTrash(note.id)
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            #expect(try await store.trash().map(\.id) == [note.id.rawValue], "the later delete wins: in the trash, restorable")
        }
        try await b.store.restoreFromTrash(note.id.rawValue)
        try await Self.syncAll(a.store, b.store, c.store)
        for store in stores {
            #expect(try await store.note(note.id).body == "one more line", "the edit made before the delete went to the trash with it")
            #expect(try await store.notes().count == 1, "no conflict copy: a move to the trash changes no text")
        }
    }
}
