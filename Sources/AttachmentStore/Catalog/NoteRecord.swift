import CatalogSQL
import Foundation

/// A row of the `note` table.
struct NoteRecord: Sendable, Equatable {
    var id: String
    var title: String
    var body: String
    var createdAt: Date
    var updatedAt: Date
    /// When it last changed, by the clock of the peer that changed it (empty before sync existed).
    var clock: String = ""
    /// When it was moved to the trash; `nil` while it is not there.
    var trashedAt: Date?
    /// The edits this version includes (empty for a row older than version vectors: see
    /// ``effectiveVersions``).
    var versions = VersionVector()

    init(_ note: Note) {
        id = note.id.rawValue
        title = note.title
        body = note.body
        createdAt = note.createdAt
        updatedAt = note.updatedAt
    }

    init(row: SQLRow) throws {
        id = try row.requiredString("id")
        title = try row.requiredString("title")
        body = try row.requiredString("body")
        createdAt = try row.requiredDate("createdAt")
        updatedAt = try row.requiredDate("updatedAt")
        clock = try row.string("clock") ?? ""
        trashedAt = try row.date("trashedAt")
        versions = try Self.versions(try row.string("versions") ?? "{}")
    }

    /// The `versions` column's JSON.
    static func versions(_ json: String) throws(SQLDecodingError) -> VersionVector {
        guard let versions = try? VersionVector(json: json) else {
            throw SQLDecodingError(column: "versions", reason: "holds \(json.prefix(40)), not a JSON object of clock stamps")
        }
        return versions
    }

    /// ``versions``, or for a row written before version vectors, the one edit its clock names.
    var effectiveVersions: VersionVector {
        versions.isEmpty ? VersionVector([ClockStamp(rawValue: clock)]) : versions
    }

    /// Makes this row a new local version of the note's text stamped `stamp`: its clock, and its
    /// versions those of the row it replaces plus this edit.
    mutating func stamp(_ stamp: ClockStamp) {
        versions = effectiveVersions.advanced(by: stamp)
        clock = stamp.rawValue
    }

    /// Stamps a change of this row that leaves its text alone (to or from the trash): its clock
    /// only, so that the change wins by clock while its versions still say which text it has.
    mutating func stampStateChange(_ stamp: ClockStamp) {
        if versions.isEmpty && !clock.isEmpty { versions = effectiveVersions }
        clock = stamp.rawValue
    }

    /// The public value.
    var note: Note {
        Note(id: NoteID(rawValue: id), title: title, body: body, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// The columns a row is written with, and each one's value: the one list inserts and
    /// upserts are built from. `titleKey` is derived from the title here, the one place a
    /// note's row is written.
    static let columns = SQLColumns<NoteRecord>(table: "note", key: ["id"], [
        .init("id") { .text($0.id) },
        .init("title") { .text($0.title) },
        .init("body") { .text($0.body) },
        .init("createdAt") { .date($0.createdAt) },
        .init("updatedAt") { .date($0.updatedAt) },
        .init("clock") { .text($0.clock) },
        .init("trashedAt") { $0.trashedAt.map(SQLValue.date) ?? .null },
        .init("versions") { .text($0.versions.json) },
        .init("titleKey") { .text(NoteTitleSortKey.key(for: $0.title)) },
    ])

    /// Inserts the row.
    func insert(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.insert, Self.columns.arguments(of: self))
    }

    /// Inserts the row, or replaces every field of the row with its id.
    func save(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.upsert, Self.columns.arguments(of: self))
    }

    /// The note with `id`, if any.
    static func fetch(_ id: String, in db: any SQLTransaction) throws -> NoteRecord? {
        try db.queryOne("SELECT * FROM note WHERE id = ?", [.text(id)]).map(NoteRecord.init(row:))
    }

    /// Which of the notes `ids` exist, in the trash or not.
    static func existing(ids: [String], in db: any SQLTransaction) throws -> Set<String> {
        var found: Set<String> = []
        for chunk in SQLPlaceholders.chunks(ids) {
            for row in try db.query("SELECT id FROM note WHERE id IN (\(SQLPlaceholders.list(chunk.count)))", chunk.map(SQLValue.text)) {
                found.insert(try row.requiredString("id"))
            }
        }
        return found
    }

    /// The notes `ids` that exist, in the trash or not, by id.
    static func fetch(ids: [String], in db: any SQLTransaction) throws -> [String: NoteRecord] {
        var notes: [String: NoteRecord] = [:]
        for chunk in SQLPlaceholders.chunks(ids) {
            for row in try db.query("SELECT * FROM note WHERE id IN (\(SQLPlaceholders.list(chunk.count)))", chunk.map(SQLValue.text)) {
                let note = try NoteRecord(row: row)
                notes[note.id] = note
            }
        }
        return notes
    }

    /// The note with `id` if it exists and is not in the trash.
    static func fetchLive(_ id: String, in db: any SQLTransaction) throws -> NoteRecord? {
        try fetch(id, in: db).flatMap { $0.trashedAt == nil ? $0 : nil }
    }

    /// Whether a note with `id` exists and is not in the trash: the notes every read and write
    /// of the store's API sees (the trash has its own, ``AttachmentStore/trash()``).
    static func isLive(_ id: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM note WHERE id = ? AND trashedAt IS NULL) AS found", [.text(id)])?.bool("found") ?? false
    }

    /// Whether a note with `id` exists, in the trash or not.
    static func exists(_ id: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM note WHERE id = ?) AS found", [.text(id)])?.bool("found") ?? false
    }

    /// Deletes the note with `id` (its attachments go by cascade).
    static func delete(_ id: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM note WHERE id = ?", [.text(id)])
    }

    /// Notes not in the trash that `text` finds (``NoteSearch``: each word begins a word of the
    /// title or body), or all of them, in `order`, after `cursor` when there is one, skipping
    /// `offset`. A text with no word in it finds nothing. Every order is read off its index
    /// (`note(updatedAt DESC, id)`, `note(createdAt DESC, id)`, `note(titleKey, id)`), from the
    /// cursor's place on: ties are broken by id.
    static func page(matching text: String?, order: NoteOrder, limit: Int, offset: Int, after cursor: NoteCursor? = nil,
                     dialect: SQLDialect, in db: any SQLTransaction) throws -> [NoteRecord] {
        var conditions = ["trashedAt IS NULL"]
        var arguments: [SQLValue] = []
        if let text, !text.isEmpty {
            guard let search = NoteSearch(text) else { return [] }
            let condition = search.condition(for: dialect)
            conditions.append(condition.sql)
            arguments.append(condition.argument)
        }
        let sorting = NoteListing(order)
        if let cursor {
            precondition(cursor.order == order, "a cursor pages the order it was made in")
            // The bound first, on its own (`updatedAt <= ?`): a range SQLite and PostgreSQL seek to
            // in the index. Written only as `updatedAt < ? OR (updatedAt = ? AND id > ?)`, SQLite
            // walks the index from the first note instead (18 ms at 100,000 notes against 0.06 ms).
            let place = sorting.value(cursor.place)
            conditions.append("\(sorting.column) \(sorting.from) ? AND (\(sorting.column) \(sorting.beyond) ? OR id > ?)")
            arguments += [place, place, .text(cursor.id.rawValue)]
        }
        let condition = "WHERE " + conditions.joined(separator: " AND ")
        return try db.query("SELECT * FROM note \(condition) ORDER BY \(sorting.column) \(sorting.direction), id LIMIT ? OFFSET ?",
                            arguments + [.integer(Int64(limit)), .integer(Int64(offset))]).map(NoteRecord.init(row:))
    }
}
