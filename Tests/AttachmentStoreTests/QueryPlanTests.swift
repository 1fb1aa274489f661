@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Every statement the store sends its catalog on the paths that run all day — pages of notes,
/// search, a note and its attachments, edits and moves, the trash, the change feed and applying
/// a peer's batch, statistics, gc — recorded as it runs, then planned by the catalog itself
/// (SQLite's `EXPLAIN QUERY PLAN`; PostgreSQL's `EXPLAIN` with sequential scans and sorts
/// priced out, so a plan keeps one only when no index can serve). None may read a whole table or
/// sort rows in a temporary structure, except the few listed below with the reason that makes
/// them cheap: a store of 10 million notes must answer these as fast as one of a thousand.
///
/// Runs on the suite's catalog: SQLite, or PostgreSQL with `ATTACH_TEST_CATALOG=postgres`.
@Suite("Query plans")
struct QueryPlanTests {
    /// The scans and sorts expected, each of the statements containing `statement`, and of the
    /// plan steps containing `step`, with why it does not grow with the store.
    struct Expected {
        let statement: String
        let step: String
        let reason: String
    }

    static let expected: [Expected] = [
        Expected(statement: "EXISTS (SELECT 1 FROM blob)", step: "blob",
                 reason: "whether the store has any blob at all: the scan stops at the first row"),
        Expected(statement: "WHERE trashedAt IS NULL ORDER BY", step: "note_on_",
                 reason: "a page by offset walks the index of its order and stops after offset + limit rows; the app pages by cursor, which searches the index"),
        Expected(statement: "note_search MATCH", step: "TEMP B-TREE",
                 reason: "a search sorts the notes it matched, not the store: a rare word costs the same at any size, a common one grows with its matches"),
        Expected(statement: "@@ to_tsquery", step: "",
                 reason: "PostgreSQL's search, as SQLite's: it reads the notes the words match"),
        Expected(statement: "ROW_NUMBER() OVER (PARTITION BY noteId", step: "",
                 reason: "previews sort at most `first` attachments of each note of one page"),
        Expected(statement: "substr(key, 1,", step: "storeSetting",
                 reason: "the settings table holds a few rows per peer; a prefix range would depend on the catalog's collation"),
        Expected(statement: "WHERE referenceCount = 0", step: "blob_unreferenced",
                 reason: "a partial index of the blobs nothing references: gc reads its garbage, not the catalog"),
        Expected(statement: "FROM catalogTally", step: "catalogTally",
                 reason: "the kept statistics: one row in SQLite, in PostgreSQL at most about 1,024 changes not yet folded into it"),
    ]

    @Test("no statement of the everyday paths scans a whole table or sorts in a temporary structure, but those listed with their reason")
    func everydayStatementsUseIndexes() async throws {
        let directory = try TemporaryDirectory("query-plans")
        let underlying: any SQLDatabase = StoreFixture.usesPostgres
            ? try await StoreFixture.testCatalog(label: "plans")
            : try SQLiteCatalogDatabase(path: directory.appending("catalog.sqlite").path, busyTimeout: 5)
        let recorder = RecordingSQLDatabase(underlying)
        var configuration = AttachmentStore.Configuration()
        configuration.catalogDatabase = recorder
        configuration.thumbnails.generateAfterImport = false
        let store = try await AttachmentStore.create(at: directory.appending("store"), configuration: configuration)
        if underlying.dialect == .postgres { try await Self.keepWithoutStatistics(underlying) }
        try await Self.exerciseEverydayPaths(of: store)
        recorder.stopRecording()

        let statements = recorder.statements
        #expect(statements.count > 40, "the paths ran \(statements.count) distinct statements")
        var problems: [String] = []
        for statement in statements {
            let plan = try await Self.plan(of: statement, in: underlying)
            let unexpected = Self.fullScansAndSorts(in: plan, underlying.dialect).filter { step in
                !Self.expected.contains { statement.sql.contains($0.statement) && ($0.step.isEmpty || step.lowercased().contains($0.step.lowercased())) }
            }
            guard !unexpected.isEmpty else { continue }
            problems.append("\(statement.sql)\n    plan: \(unexpected.joined(separator: " | "))\n    whole plan:\n\(plan.joined(separator: "\n"))")
        }
        #expect(problems.isEmpty, "statements that scan or sort:\n\(problems.joined(separator: "\n"))")
    }

    /// Seeds notes and attachment records the way a peer's batch brings them, adds real photos,
    /// and walks what the app and the sync loop do every day.
    static func exerciseEverydayPaths(of store: AttachmentStore) async throws {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var changes: [SyncChange] = []
        for index in 0..<2_000 {
            let date = base.addingTimeInterval(Double(index) * 60)
            let note = Note(id: NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", index)), title: "Note \(index)",
                            body: "word\(index % 7) common", createdAt: date, updatedAt: date)
            changes.append(.note(.init(note, clock: ClockStamp(rawValue: String(format: "%013lld-000000-plans", Int64(date.timeIntervalSince1970 * 1000))))))
        }
        for index in 0..<2_000 {
            let date = base.addingTimeInterval(Double(index) * 60 + 30)
            let attachment = Attachment(
                id: AttachmentID(rawValue: String(format: "00000000-0000-4000-9000-%012d", index)),
                noteID: NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", index % 500)), position: index / 500,
                blobHash: BlobHash(rawValue: String(format: "%064llx", index + 1))!, byteCount: 3_000_000, mediaType: "image/jpeg",
                filename: "IMG_\(index).jpg", image: .init(width: 4032, height: 3024, orientation: 1), metadata: [:],
                createdAt: date, updatedAt: date, state: .remote)
            changes.append(.attachment(.init(attachment, clock: ClockStamp(rawValue: String(format: "%013lld-000000-plans", Int64(date.timeIntervalSince1970 * 1000))))))
        }
        _ = try await store.apply(SyncBatch(peerID: "plans-peer", changes: changes, nextSequence: 4_000, hasMore: false), pulledFrom: "http://peer")

        // Local edits: a note with photos, moved, retitled, trashed and restored.
        let note = try await store.createNote(title: "Holiday", body: "beach")
        let photos = Array(try Corpus.files(in: "fifty").prefix(3))
        let first = try await store.addAttachment(to: note.id, fromFile: photos[0])
        let second = try await store.addAttachment(to: note.id, fromFile: photos[1])
        let third = try await store.addAttachment(to: note.id, fromFile: photos[2])
        let added = [first, second, third]
        try await store.moveAttachment(added[2].id, to: 0)
        try await store.setAltText(added[0].id, to: "a beach")
        _ = try await store.updateNote(note.id, title: "Holiday 2026")
        let other = try await store.createNote(title: "Other")
        try await store.moveAttachment(added[1].id, toNote: other.id)

        // Reading: pages, cursors, search, a note and its attachments, previews.
        for order in [NoteOrder.updated, .created, .title] {
            let page = try await store.notes(order: order, limit: 50)
            if let cursor = NoteCursor.next(after: page, limit: 50, order: order) {
                _ = try await store.notes(limit: 50, after: cursor)
            }
        }
        _ = try await store.notes(matching: "word3", limit: 50)
        _ = try await store.notes(matching: "word3", limit: 50, offset: 50)
        _ = try await store.note(note.id)
        _ = try await store.attachments(of: note.id)
        _ = try await store.attachments(of: note.id, after: 0, limit: 2)
        _ = try await store.attachmentPreviews(of: [note.id, other.id], first: 4)
        _ = try await store.attachment(added[0].id)
        _ = try await store.attachmentCount(of: note.id)
        _ = try await store.resolveNoteID(String(note.id.rawValue.prefix(8)))
        _ = try await store.resolveAttachmentID(String(added[0].id.rawValue.prefix(8)))
        _ = try await store.original(of: added[0].id)
        _ = try await store.noteVersions(of: note.id)

        // The trash.
        try await store.moveAttachmentToTrash(added[0].id)
        try await store.moveNoteToTrash(other.id)
        _ = try await store.trash()
        _ = try await store.restoreFromTrash(added[0].id.rawValue)
        try await store.purgeFromTrash(other.id.rawValue)
        try await store.deleteAttachment(added[2].id)

        // Sync: the feed, a peer's cursor, a batch applied, a statistics read.
        var since: Int64 = 0
        while true {
            let batch = try await store.changes(since: since, limit: 200)
            since = batch.nextSequence
            if !batch.hasMore { break }
        }
        _ = try await store.changeFeedPosition()
        _ = try await store.syncCursor(forPeer: "http://peer")
        _ = try await store.knownPeers()
        _ = try await store.statistics()
        _ = try await store.holdsOriginal(added[0].blobHash)

        // Maintenance that must cost its own work, not the catalog: gc (a trashed note purged,
        // its photo's blob unreferenced and collected).
        try await store.moveNoteToTrash(note.id)
        try await store.purgeFromTrash(note.id.rawValue)
        let garbage = try await store.collectGarbage(olderThan: .zero)
        #expect(garbage.blobs >= 1, "gc collected \(garbage.blobs) blobs")
    }

    /// Keeps autovacuum from analyzing the test catalog's tables: the plans are those of a catalog
    /// whose size the planner does not know, as when the test was written. On a busy machine the
    /// test outlasts autovacuum's minute, and with statistics of its 2,000 notes the planner
    /// rightly walks small indexes whole (a lookup of 1,000 ids is half the table; the trash's
    /// partial index is the trash) where a catalog of millions would probe them.
    static func keepWithoutStatistics(_ database: any SQLDatabase) async throws {
        let tables = try await database.write { db in
            let tables = try db.query("SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()", [])
            for table in tables {
                try db.execute("ALTER TABLE \(try table.requiredString("name")) SET (autovacuum_enabled = false)", [])
            }
            return tables.count
        }
        #expect(tables > 10, "the catalog's tables were found")
    }

    /// The plan of `statement`, a line per step.
    static func plan(of statement: RecordingSQLDatabase.Statement, in database: any SQLDatabase) async throws -> [String] {
        switch database.dialect {
        case .sqlite:
            return try await database.read { db in
                try db.query("EXPLAIN QUERY PLAN " + statement.sql, statement.arguments).map { try $0.string("detail") ?? "" }
            }
        case .postgres:
            return try await database.read { db in
                // Priced out: a whole-table read, and the joins that read both sides whole. What
                // a small test catalog would choose for them, a large one would not; what is
                // left is what no index can serve.
                for setting in ["enable_seqscan", "enable_mergejoin", "enable_hashjoin"] {
                    try db.execute("SET LOCAL \(setting) = off", [])
                }
                return try db.query("EXPLAIN " + statement.sql, statement.arguments).map { row in
                    try row.string("QUERY PLAN") ?? ""
                }
            }
        }
    }

    /// The steps of `plan` that read a whole catalog table or sort rows in a temporary structure.
    /// SQLite says `SCAN table` (with or without an index: a walk of all of it) and `USE TEMP
    /// B-TREE`. PostgreSQL, with sequential scans and whole-table joins priced out, says `Seq
    /// Scan` only when no index can serve, and an index walked whole is an `Index Scan` or `Index
    /// Only Scan` with no `Index Cond` among its details; a sort there sorts what an index
    /// lookup found, which the scan checks already bound.
    static func fullScansAndSorts(in plan: [String], _ dialect: SQLDialect) -> [String] {
        switch dialect {
        case .sqlite:
            let tables: Set<String> = ["note", "attachment", "blob", "imageEntry", "tombstone", "change", "noteVersion", "storeSetting",
                                       "blobLease", "blobContent", "loginSession", "resumableUpload", "resumableUploadPart", "note_search"]
            return plan.filter { step in
                if step.contains("USE TEMP B-TREE") { return true }
                // A full-text match is the search index's own lookup, not a scan.
                guard step.hasPrefix("SCAN "), !step.contains("VIRTUAL TABLE") else { return false }
                return tables.contains(step.dropFirst(5).split(separator: " ").first.map(String.init) ?? "")
            }
        case .postgres:
            var found: [String] = []
            for (index, line) in plan.enumerated() {
                if line.contains("Seq Scan on ") { found.append(line) }
                guard line.contains("Index Scan using ") || line.contains("Index Only Scan using ") else { continue }
                let details = plan[(index + 1)...].prefix { !$0.contains("->") }
                if !details.contains(where: { $0.contains("Index Cond:") }) { found.append(line) }
            }
            return found.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}
