import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Writes of several handles at once, on every backend. On PostgreSQL, writes that lock only
/// their note and blob run side by side (`Catalog.write(locking:)`); these tests prove that what
/// those locks guard (a note's positions, a blob's row) stays right when they do.
@Suite("Writers at once")
struct WritersAtOnceTests {
    @Test("attachments added at once through two handles, to one note and to notes of their own, each get a position of their own")
    func concurrentAddsKeepPositions() async throws {
        let fixture = try await StoreFixture("writers")
        try await fixture.asAnotherServer { first in
            try await fixture.asAnotherServer { second in
                try await Self.addAtOnce(first, second)
            }
        }
    }

    /// Adds 12 attachments through each handle to a shared note and 12 to a note of its own, all
    /// at once, and checks every position.
    static func addAtOnce(_ first: AttachmentStore, _ second: AttachmentStore) async throws {
        let shared = try await first.createNote(title: "shared")
        let own = [try await first.createNote(title: "first's"), try await second.createNote(title: "second's")]
        // Content already stored commits at once, with no copy to upload first: the adds to the
        // shared note reach the catalog together, where only the note's lock orders them (each
        // its own content, so no blob row orders them either).
        let perHandle = 12
        let known = (0..<(2 * perHandle)).map { Data("bytes the store already holds, \($0)".utf8) }
        let library = try await first.createNote(title: "library")
        for data in known { _ = try await first.addAttachment(to: library.id, data: data, filename: "known.txt") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                for upload in 0..<perHandle {
                    group.addTask {
                        _ = try await store.addAttachment(to: shared.id, data: known[index * perHandle + upload], filename: "s\(index)-\(upload).txt")
                    }
                    group.addTask {
                        _ = try await store.addAttachment(to: own[index].id, data: Data("own \(index)-\(upload)".utf8), filename: "o\(index)-\(upload).txt")
                    }
                }
            }
            try await group.waitForAll()
        }
        let inShared = try await first.attachments(of: shared.id)
        #expect(inShared.map(\.position) == Array(0..<(2 * perHandle)))
        #expect(Set(inShared.map(\.blobHash)).count == 2 * perHandle)
        for note in own {
            #expect(try await second.attachments(of: note.id).map(\.position) == Array(0..<perHandle))
        }
        let report = try await first.verify()
        #expect(report.isClean, "\(report)")
    }

    @Test("notes created and edited at once through two handles keep every edit")
    func concurrentNoteEditsKeepEveryNote() async throws {
        let fixture = try await StoreFixture("note-writers")
        try await fixture.asAnotherServer { first in
            try await fixture.asAnotherServer { second in
                try await Self.editAtOnce([first, second])
            }
        }
    }

    /// Creates and edits 16 notes through the two handles at once, and checks every edit.
    static func editAtOnce(_ handles: [AttachmentStore]) async throws {
        let notes = try await withThrowingTaskGroup(of: Note.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let store = handles[index % 2]
                    let note = try await store.createNote(title: "note \(index)")
                    return try await store.updateNote(note.id, body: "edited \(index)")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(notes.count == 16)
        for note in notes {
            let stored = try await handles[0].note(note.id)
            #expect(stored.body == "edited " + stored.title.dropFirst("note ".count))
        }
    }
}
