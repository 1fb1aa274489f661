@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// The statistics the catalog keeps as it changes (``CatalogTally``), on the suite's catalog
/// (SQLite, or PostgreSQL with `ATTACH_TEST_CATALOG=postgres`): always what a count of the
/// records says, whatever changed them; a catalog edited around them is found and recounted;
/// and `gc` never trusts a count that says an original is unreferenced.
@Suite("Kept statistics", .timeLimit(.minutes(3)))
struct CatalogTallyTests {
    /// The kept figures and a count of the records, which must agree (scrub counters aside).
    static func expectKeptEqualsCounted(_ store: AttachmentStore, after step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let kept = try await store.catalog.read { db in try StoreStatistics(catalog: db) }
        let counted = try await store.catalog.read { db in try StoreStatistics(recountingCatalog: db) }
        #expect(kept == counted, "after \(step): kept \(kept), counted \(counted)", sourceLocation: sourceLocation)
        #expect(try await store.catalog.tallyProblems().isEmpty, "after \(step)", sourceLocation: sourceLocation)
    }

    /// `count` notes with one remote attachment record each, as a peer's batch brings them.
    static func peerBatch(notes count: Int, from first: Int = 0) -> SyncBatch {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var changes: [SyncChange] = []
        for index in first..<(first + count) {
            let date = base.addingTimeInterval(Double(index))
            let stamp = ClockStamp(rawValue: String(format: "%013lld-000000-tally", Int64(date.timeIntervalSince1970 * 1000)))
            let noteID = NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", index))
            changes.append(.note(.init(Note(id: noteID, title: "Note \(index)", body: "", createdAt: date, updatedAt: date), clock: stamp)))
            let attachment = Attachment(
                id: AttachmentID(rawValue: String(format: "00000000-0000-4000-9000-%012d", index)), noteID: noteID, position: 0,
                // Every second record shares its bytes with the one before: deduplicated.
                blobHash: BlobHash(rawValue: String(format: "%064llx", index / 2 + 1))!, byteCount: Int64(1_000 + index / 2),
                mediaType: "image/jpeg", filename: "IMG_\(index).jpg", image: nil, metadata: [:], createdAt: date, updatedAt: date, state: .remote)
            changes.append(.attachment(.init(attachment, clock: stamp)))
        }
        return SyncBatch(peerID: "tally-peer", changes: changes, nextSequence: Int64(first + count) * 2, hasMore: false)
    }

    @Test("the kept statistics equal a count of the records after imports, duplicates, moves, the trash, a purge, image keys, a peer's batch, deletes and gc")
    func keptStatisticsFollowEveryChange() async throws {
        let fixture = try await StoreFixture("tally")
        let store = fixture.store
        try await Self.expectKeptEqualsCounted(store, after: "creating the store")

        let photos = Array(try Corpus.files(in: "fifty").prefix(3))
        let note = try await store.createNote(title: "Trip")
        let first = try await store.addAttachment(to: note.id, fromFile: photos[0])
        let second = try await store.addAttachment(to: note.id, fromFile: photos[1])
        _ = try await store.addAttachment(to: note.id, fromFile: photos[0])  // the same bytes again
        try await Self.expectKeptEqualsCounted(store, after: "imports and a duplicate")
        let stats = try await store.statistics()
        #expect(stats.attachments == 3 && stats.blobs == 2)
        #expect(stats.bytesSavedByDeduplication == first.byteCount)

        let other = try await store.createNote(title: "Other")
        try await store.moveAttachment(second.id, toNote: other.id)
        try await store.setImage(try Data(contentsOf: photos[2]), forKey: "avatar")
        try await store.setImage(try Data(contentsOf: photos[1]), forKey: "banner")  // the bytes of an attachment
        try await Self.expectKeptEqualsCounted(store, after: "a move and image keys")

        _ = try await store.apply(Self.peerBatch(notes: 40), pulledFrom: "http://peer")
        try await Self.expectKeptEqualsCounted(store, after: "a peer's batch")

        try await store.moveAttachmentToTrash(first.id)
        try await store.moveNoteToTrash(other.id)
        try await Self.expectKeptEqualsCounted(store, after: "moves to the trash")
        try await store.purgeFromTrash(other.id.rawValue)
        try await store.deleteNote(NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", 3)))
        // Records 2 and 3 share their bytes: with both gone, the blob is garbage.
        try await store.deleteAttachment(AttachmentID(rawValue: String(format: "00000000-0000-4000-9000-%012d", 2)))
        try await Self.expectKeptEqualsCounted(store, after: "a purge and deletes")

        let garbage = try await store.collectGarbage(olderThan: .zero)
        #expect(garbage.blobs >= 1)
        try await Self.expectKeptEqualsCounted(store, after: "gc")
        #expect(try await store.verify().isClean)
    }

    @Test("a catalog edited around its triggers is reported by verify, gc keeps the original its count calls unreferenced, and a recount repairs it")
    func miscountIsFoundAndRepaired() async throws {
        let fixture = try await StoreFixture("tally-tampered")
        let store = fixture.store
        let note = try await store.createNote(title: "Kept")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        try await store.catalog.write { db in
            try db.execute("UPDATE blob SET referenceCount = 0 WHERE hash = ?", [.text(photo.blobHash.rawValue)])
            try db.execute("UPDATE catalogTally SET notes = notes + 5 WHERE id = (SELECT MIN(id) FROM catalogTally)", [])
        }

        let report = try await store.verify()
        #expect(!report.isClean)
        #expect(report.miscountedFigures.contains { $0.contains("blob \(photo.blobHash.rawValue) has a wrong reference count") }, "\(report.miscountedFigures)")
        #expect(report.miscountedFigures.contains { $0.contains("keep 6 notes where the records count 1") }, "\(report.miscountedFigures)")

        let garbage = try await store.collectGarbage(olderThan: .zero)
        #expect(garbage.blobs == 0, "a count of 0 is confirmed by the records before anything goes")
        #expect(try await store.original(of: photo.id).data() == (try Data(contentsOf: try Corpus.file("good/Dune.jpg"))))

        try await store.recountStatistics()
        #expect(try await store.verify().isClean)
        try await Self.expectKeptEqualsCounted(store, after: "a recount")
        #expect(try await store.statistics().notes == 1)
    }

    @Test("many changes keep the tally a few rows: PostgreSQL folds its rows as they pile up, SQLite keeps one")
    func tallyStaysSmall() async throws {
        let fixture = try await StoreFixture("tally-fold")
        let store = fixture.store
        for start in stride(from: 0, to: 3_000, by: 1_000) {
            _ = try await store.apply(Self.peerBatch(notes: 1_000, from: start), pulledFrom: "http://peer")
        }
        try await Self.expectKeptEqualsCounted(store, after: "3,000 notes and attachments")
        let rows = try await store.catalog.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM catalogTally")?.int64("n") ?? 0 }
        // 3,000 notes, 3,000 attachments and 1,500 blobs each added a row in PostgreSQL.
        #expect(rows <= (fixture.store.catalog.database.dialect == .sqlite ? 1 : 1_024), "\(rows) rows")
        #expect(try await store.statistics().attachments == 3_000)
    }
}
