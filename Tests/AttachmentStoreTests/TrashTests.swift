import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Deleting moves to a trash: out of every list, restorable with its attachments and bytes,
/// purged for good only after the retention (or on request).
@Suite("Trash: deleted notes and attachments kept until purged", .timeLimit(.minutes(2)))
struct TrashTests {
    @Test("a note moved to the trash leaves lists, search and reads, keeps its originals through gc, and comes back whole")
    func noteToTrashAndBack() async throws {
        let fixture = try await StoreFixture("note-trash")
        let store = fixture.store
        let note = try await store.createNote(title: "Holiday", body: "beach photos")
        let photo = try await store.addAttachment(to: note.id, fromFile: Corpus.file("good/Garden.jpg"))
        try await store.moveNoteToTrash(note.id)

        #expect(try await store.notes().isEmpty)
        #expect(try await store.notes(matching: "beach").isEmpty)
        #expect(try await store.allAttachments().isEmpty)
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.note(note.id) }
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.updateNote(note.id, body: "x") }
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.attachments(of: note.id) }
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) {
            try await store.addAttachment(to: note.id, data: Data("text".utf8), filename: "a.txt")
        }
        await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.moveNoteToTrash(note.id) }

        let items = try await store.trash()
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.kind == .note && item.id == note.id.rawValue && item.title == "Holiday")
        #expect(item.attachmentCount == 1 && item.byteCount == photo.byteCount)
        #expect(abs(item.purgeAt.timeIntervalSince(item.trashedAt) - 30 * 86_400) < 1, "30 days by default")

        let garbage = try await store.collectGarbage(olderThan: .zero)
        #expect(garbage.blobs == 0 && garbage.trashedNotesPurged == 0, "the originals of what is in the trash are kept")
        #expect(try await store.original(of: photo.id).data() == (try Data(contentsOf: Corpus.file("good/Garden.jpg"))),
                "an attachment in the trash can still be read by id")

        let restored = try await store.restoreFromTrash(String(note.id.rawValue.prefix(8)))
        #expect(restored.id == note.id.rawValue)
        #expect(try await store.trash().isEmpty)
        #expect(try await store.note(note.id).body == "beach photos")
        #expect(try await store.attachments(of: note.id).map(\.id) == [photo.id])
        #expect(try await store.verify().isClean)
    }

    @Test("an attachment moved to the trash leaves its note's order and comes back about where it was")
    func attachmentToTrashAndBack() async throws {
        let fixture = try await StoreFixture("attachment-trash")
        let store = fixture.store
        let note = try await store.createNote(title: "Receipts")
        let added = try await Array(0..<3).asyncMap { index in
            try await store.addAttachment(to: note.id, data: Data("receipt \(index)".utf8), filename: "r\(index).txt")
        }
        try await store.moveAttachmentToTrash(added[1].id)

        let left = try await store.attachments(of: note.id)
        #expect(left.map(\.id) == [added[0].id, added[2].id])
        #expect(left.map(\.position) == [0, 1], "the others close up")
        #expect(try await store.attachmentCount(of: note.id) == 2)
        await #expect(throws: AttachmentStore.Error.attachmentNotFound(added[1].id.rawValue)) { try await store.moveAttachment(added[1].id, to: 0) }
        await #expect(throws: AttachmentStore.Error.attachmentNotFound(added[1].id.rawValue)) {
            try await store.replaceAttachmentData(added[1].id, data: Data("other".utf8))
        }
        let item = try #require(try await store.trash().first)
        #expect(item.kind == .attachment && item.title == "r1.txt" && item.noteID == note.id && item.mediaType == "text/plain")

        // Moved while it was away: restored, it comes back at its stored place.
        try await store.moveAttachment(added[2].id, to: 0)
        try await store.restoreFromTrash(added[1].id.rawValue)
        let order = try await store.attachments(of: note.id)
        #expect(Set(order.map(\.id)) == Set(added.map(\.id)))
        #expect(order.first?.id == added[2].id, "the move made while it was away holds")
        #expect(order.map(\.position) == [0, 1, 2], "no two share a position")
    }

    @Test("restoring an attachment whose note is in the trash too brings the note back; a note's own restore leaves attachments trashed on their own")
    func restoreBringsTheNote() async throws {
        let fixture = try await StoreFixture("restore-note")
        let store = fixture.store
        let note = try await store.createNote(title: "Album")
        let kept = try await store.addAttachment(to: note.id, data: Data("kept".utf8), filename: "kept.txt")
        let alone = try await store.addAttachment(to: note.id, data: Data("alone".utf8), filename: "alone.txt")
        try await store.moveAttachmentToTrash(alone.id)
        try await store.moveNoteToTrash(note.id)
        #expect(Set(try await store.trash().map(\.id)) == [note.id.rawValue, alone.id.rawValue])

        try await store.restoreFromTrash(alone.id.rawValue)
        #expect(try await store.note(note.id).title == "Album")
        #expect(try await store.attachments(of: note.id).map(\.id) == [kept.id, alone.id])

        try await store.moveAttachmentToTrash(alone.id)
        try await store.moveNoteToTrash(note.id)
        try await store.restoreFromTrash(note.id.rawValue)
        #expect(try await store.attachments(of: note.id).map(\.id) == [kept.id], "trashed on its own, it stays in the trash")
    }

    @Test("a purge deletes for good: by hand, what went to the trash before a time, or everything; each purge travels as a tombstone")
    func purges() async throws {
        let fixture = try await StoreFixture("purge")
        let store = fixture.store
        let old = try await store.createNote(title: "old")
        let photo = try await store.addAttachment(to: old.id, fromFile: Corpus.file("good/Garden.jpg"))
        let fresh = try await store.createNote(title: "fresh")
        let byHand = try await store.createNote(title: "by hand")
        try await store.moveNoteToTrash(old.id)
        try await Task.sleep(for: .milliseconds(20))
        let cutoff = Date()
        try await Task.sleep(for: .milliseconds(20))
        try await store.moveNoteToTrash(fresh.id)
        try await store.moveNoteToTrash(byHand.id)

        try await store.purgeFromTrash(byHand.id.rawValue)
        await #expect(throws: AttachmentStore.Error.notInTrash(byHand.id.rawValue)) { try await store.restoreFromTrash(byHand.id.rawValue) }
        #expect(try await store.emptyTrash(trashedBefore: cutoff).notes == 1, "only what went there before the cutoff")
        #expect(try await store.trash().map(\.id) == [fresh.id.rawValue])
        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.trashedNotesPurged == 0, "30 days by default")
        #expect(report.blobs == 1, "the purged note's original, now unreferenced, goes")
        #expect(try await !store.hasBlob(photo.blobHash))
        let tombstones = try await store.changes(since: 0).changes.compactMap { change -> String? in
            if case .tombstone(let tombstone) = change { tombstone.id } else { nil }
        }
        #expect(Set(tombstones) == [old.id.rawValue, byHand.id.rawValue], "each purge travels as a tombstone")

        #expect(try await store.emptyTrash().notes == 1)
        #expect(try await store.trash().isEmpty)
        await #expect(throws: AttachmentStore.Error.notInTrash("nope")) { try await store.purgeFromTrash("nope") }
    }

    @Test("gc purges what outlived the trash's retention before it looks for garbage, so the bytes go in the same run; a dry run only counts")
    func gcPurgesPastTheRetention() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.trashRetention = .zero
        let fixture = try await StoreFixture("gc-purge", configuration: configuration)
        let store = fixture.store
        let note = try await store.createNote(title: "expired")
        let photo = try await store.addAttachment(to: note.id, fromFile: Corpus.file("good/Garden.jpg"))
        try await store.moveNoteToTrash(note.id)
        try await Task.sleep(for: .milliseconds(5))
        let dry = try await store.collectGarbage(olderThan: .zero, dryRun: true)
        #expect(dry.trashedNotesPurged == 1 && dry.blobs == 0)
        #expect(try await store.trash().count == 1, "a dry run purges nothing")
        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.trashedNotesPurged == 1 && report.blobs == 1)
        #expect(try await !store.hasBlob(photo.blobHash))
        #expect(try await store.trash().isEmpty)
        #expect(try await store.verify().isClean)
    }
}
