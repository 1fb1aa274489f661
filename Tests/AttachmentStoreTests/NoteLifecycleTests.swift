@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

@Suite("Notes and their attachments", .timeLimit(.minutes(3)))
struct NoteLifecycleTests {
    @Test("deleting a note deletes its attachments, and gc then removes their blobs")
    func deletingNoteCascadesAndGCCollects() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let doomed = try await store.createNote(title: "doomed")
        let kept = try await store.createNote(title: "kept")
        let photos = try Corpus.files(in: "good").prefix(3)
        for photo in photos { _ = try await store.addAttachment(to: doomed.id, fromFile: photo) }
        let shared = try await store.addAttachment(to: kept.id, fromFile: photos.first!)

        try await store.deleteNote(doomed.id)
        #expect(try await store.allAttachments().map(\.id) == [shared.id])
        await #expect(throws: AttachmentStore.Error.noteNotFound(doomed.id.rawValue)) { try await store.note(doomed.id) }

        let kept1h = try await store.collectGarbage()
        #expect(kept1h.blobs == 0)
        #expect(kept1h.keptInGracePeriod == 2)
        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.blobs == 2)
        #expect(try await fixture.blobAndTemporaryFiles().count == 1)
        #expect(try await store.verify().isClean)
        #expect(try await store.original(of: shared.id).data() == (try Data(contentsOf: photos.first!)))
    }

    @Test("deleting an attachment keeps its note and closes the gap in the order")
    func deletingAttachmentKeepsNote() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "ordered")
        var ids: [AttachmentID] = []
        for index in 0..<4 { ids.append(try await store.addAttachment(to: note.id, data: Data("file \(index)".utf8), filename: "\(index).txt").id) }

        try await store.deleteAttachment(ids[1])
        #expect(try await store.note(note.id).title == "ordered")
        let remaining = try await store.attachments(of: note.id)
        #expect(remaining.map(\.id) == [ids[0], ids[2], ids[3]])
        #expect(remaining.map(\.position) == [0, 1, 2])

        try await store.moveAttachment(ids[3], to: 0)
        #expect(try await store.attachments(of: note.id).map(\.id) == [ids[3], ids[0], ids[2]])
    }

    @Test("notes can be updated, searched and paged")
    func notesSearchAndPaging() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        for index in 0..<12 { _ = try await store.createNote(title: "Note \(index)", body: index.isMultiple(of: 3) ? "garden photos" : "city") }
        let first = try await store.notes(limit: 5)
        let second = try await store.notes(limit: 5, offset: 5)
        #expect(first.count == 5 && second.count == 5)
        #expect(Set(first.map(\.id)).isDisjoint(with: second.map(\.id)))
        #expect(try await store.notes(matching: "GARDEN").count == 4)
        #expect(try await store.notes(matching: "100%").isEmpty)

        let updated = try await store.updateNote(first[0].id, body: "new body")
        #expect(updated.title == first[0].title)
        #expect(updated.body == "new body")
        #expect(updated.updatedAt >= first[0].updatedAt)
    }

    @Test("pages read by cursor give exactly the offset listing, searched or not, however the notes' times tie")
    func cursorPagesMatchOffsetPages() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        for index in 0..<31 { _ = try await store.createNote(title: "Note \(index)", body: index.isMultiple(of: 2) ? "garden" : "city") }
        for text in [nil, "garden"] as [String?] {
            let everything = try await store.notes(matching: text, limit: 100)
            var byCursor: [Note] = []
            var page = try await store.notes(matching: text, limit: 7)
            while !page.isEmpty {
                byCursor += page
                page = try await store.notes(matching: text, limit: 7, after: NoteCursor(after: page.last!))
            }
            #expect(byCursor.map(\.id) == everything.map(\.id), "text \(text ?? "none")")
        }
        let all = try await store.notes(limit: 100)
        let cursor = try #require(NoteCursor(NoteCursor(after: all[9]).description))
        #expect(cursor == NoteCursor(after: all[9]), "a cursor survives its text form")
        #expect(try await store.notes(limit: 3, offset: 2, after: cursor).map(\.id) == all[12..<15].map(\.id))
    }

    @Test("in SQLite a page of notes, by cursor or not, is read off the index in order: no sort of the whole table")
    func notePagesReadTheIndex() async throws {
        let fixture = try await StoreFixture()
        let database = fixture.store.catalog.database
        guard database.dialect == .sqlite else { return }
        for sql in [
            "SELECT * FROM note ORDER BY updatedAt DESC, id LIMIT 50 OFFSET 0",
            "SELECT * FROM note WHERE updatedAt <= '2026-01-01 00:00:00.000' AND (updatedAt < '2026-01-01 00:00:00.000' OR id > 'x') ORDER BY updatedAt DESC, id LIMIT 50 OFFSET 0",
        ] {
            let plan = try await database.read { db in try db.query("EXPLAIN QUERY PLAN " + sql, []).map { try $0.requiredString("detail") } }
            #expect(plan.contains { $0.contains("note_on_updatedAt_id") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test("in SQLite opening a store finds the newest clock through the clock indexes: no table is scanned")
    func latestClockReadsTheIndexes() async throws {
        let fixture = try await StoreFixture()
        let database = fixture.store.catalog.database
        guard database.dialect == .sqlite else { return }
        let plan = try await database.read { db in
            try db.query("EXPLAIN QUERY PLAN " + Catalog.latestClockQuery, []).map { try $0.requiredString("detail") }
        }
        for index in ["note_on_clock", "attachment_on_clock", "tombstone_on_clock"] {
            #expect(plan.contains { $0.contains(index) }, "\(plan)")
        }
        #expect(!plan.contains { $0.hasPrefix("SCAN note") || $0.hasPrefix("SCAN attachment") || $0.hasPrefix("SCAN tombstone") }, "\(plan)")
    }

    @Test("a note's attachments read page by page by position are the whole list, in order")
    func attachmentPages() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "pages")
        for index in 0..<9 { _ = try await store.addAttachment(to: note.id, data: Data("photo \(index)".utf8), filename: "\(index).txt") }
        let whole = try await store.attachments(of: note.id)
        var paged: [StoredAttachment] = []
        var page = try await store.attachments(of: note.id, after: nil, limit: 4)
        while !page.isEmpty {
            paged += page
            page = try await store.attachments(of: note.id, after: page.last!.position, limit: 4)
        }
        #expect(paged.map(\.id) == whole.map(\.id))
        #expect(try await store.attachments(of: note.id, after: 8, limit: 4).isEmpty)
        let missing = NoteID.make()
        await #expect(throws: AttachmentStore.Error.noteNotFound(missing.rawValue)) {
            _ = try await store.attachments(of: missing, after: nil, limit: 4)
        }
    }

    @Test("ids can be given as unique prefixes; ambiguity and unknown ids are typed errors")
    func identifierPrefixes() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "prefix")
        #expect(try await fixture.store.resolveNoteID(String(note.id.rawValue.prefix(8))) == note.id)
        #expect(try await fixture.store.resolveNoteID(note.id.rawValue.uppercased()) == note.id)
        await #expect(throws: AttachmentStore.Error.noteNotFound("zzzz")) { try await fixture.store.resolveNoteID("zzzz") }
        await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.resolveAttachmentID(note.id.rawValue) }
    }

    @Test("adding to a missing note stores nothing")
    func addingToMissingNoteStoresNothing() async throws {
        let fixture = try await StoreFixture()
        await #expect(throws: AttachmentStore.Error.noteNotFound("nope")) {
            try await fixture.store.addAttachment(to: NoteID(rawValue: "nope"), fromFile: Corpus.file("good/Elephants.jpg"))
        }
        #expect(try await fixture.blobAndTemporaryFiles().isEmpty)
    }
}
