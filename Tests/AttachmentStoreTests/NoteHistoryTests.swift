import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A note keeps the titles and bodies its edits replaced, a peer's winning edit included, so
/// text replaced by sync stays readable and restorable.
@Suite("Note history: earlier versions kept and restored", .timeLimit(.minutes(2)))
struct NoteHistoryTests {
    @Test("each edit keeps the text it replaced, newest first; restoring one is a new edit whose replaced text is kept in turn")
    func editsKeepEarlierVersions() async throws {
        let fixture = try await StoreFixture("history")
        let store = fixture.store
        let note = try await store.createNote(title: "Groceries", body: "milk")
        #expect(try await store.noteVersions(of: note.id).isEmpty)
        _ = try await store.updateNote(note.id, body: "milk\neggs")
        _ = try await store.updateNote(note.id, title: "Shopping")
        _ = try await store.updateNote(note.id, title: "Shopping")  // nothing changed: no version
        let versions = try await store.noteVersions(of: note.id)
        #expect(versions.map(\.title) == ["Groceries", "Groceries"])
        #expect(versions.map(\.body) == ["milk\neggs", "milk"])
        #expect(versions[0].version > versions[1].version, "newest first")

        let restored = try await store.restoreNoteVersion(note.id, version: versions[1].version)
        #expect(restored.title == "Groceries" && restored.body == "milk")
        let after = try await store.noteVersions(of: note.id)
        #expect(after.first?.title == "Shopping" && after.first?.body == "milk\neggs", "the text the restore replaced is kept")
        #expect(after.count == 3)
        let changes = try await store.changes(since: 0).changes
        #expect(changes.contains { if case .note(let state) = $0 { state.note.body == "milk" } else { false } }, "a restore syncs")
        await #expect(throws: AttachmentStore.Error.self) { try await store.restoreNoteVersion(note.id, version: "no-such-version") }
    }

    @Test("a note keeps at most 20 earlier versions, the oldest going first; they go with the note")
    func versionsAreBounded() async throws {
        let fixture = try await StoreFixture("bounded")
        let store = fixture.store
        let note = try await store.createNote(title: "counter", body: "0")
        for value in 1...25 { _ = try await store.updateNote(note.id, body: String(value)) }
        let versions = try await store.noteVersions(of: note.id)
        #expect(versions.count == 20)
        #expect(versions.first?.body == "24" && versions.last?.body == "5")
        try await store.deleteNote(note.id)
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.noteVersions(of: note.id) }
    }

    @Test("a peer's newer edit that replaces text written here keeps that text as a version on this store")
    func replacedBySyncIsKept() async throws {
        let (a, b) = (try await StoreFixture("a"), try await StoreFixture("b"))
        let note = try await a.store.createNote(title: "Trip", body: "plan")
        try await SyncCoreTests.pull(b.store, from: a.store)
        // Both edit while apart; B's edit is the later one and wins everywhere.
        _ = try await a.store.updateNote(note.id, body: "typed on the phone in a tunnel")
        try await Task.sleep(for: .milliseconds(5))
        _ = try await b.store.updateNote(note.id, body: "typed on the laptop")
        try await SyncCoreTests.pull(a.store, from: b.store)
        #expect(try await a.store.note(note.id).body == "typed on the laptop")
        let kept = try await a.store.noteVersions(of: note.id).map(\.body)
        #expect(kept.contains("typed on the phone in a tunnel"), "the losing text is still here: \(kept)")
        // An empty placeholder (an attachment that arrived before its note) is no version.
        #expect(!kept.contains(""))
    }
}
