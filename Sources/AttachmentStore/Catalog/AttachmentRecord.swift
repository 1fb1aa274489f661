import CatalogSQL
import Foundation

/// A row of the `attachment` table.
struct AttachmentRecord: Sendable {
    var id: String
    var noteId: String
    var position: Int
    var blobHash: String
    var mediaType: String
    var filename: String
    var width: Int?
    var height: Int?
    var orientation: Int?
    var metadata: [String: String]
    var createdAt: Date
    var updatedAt: Date
    /// When it last changed, by the clock of the peer that changed it (empty before sync existed).
    var clock: String = ""
    /// When it was moved to the trash on its own (not with its note); `nil` while it is not there.
    var trashedAt: Date?

    init(id: String, noteId: String, position: Int, blobHash: String, mediaType: String, filename: String,
         width: Int?, height: Int?, orientation: Int?, metadata: [String: String], createdAt: Date, updatedAt: Date, clock: String) {
        self.id = id
        self.noteId = noteId
        self.position = position
        self.blobHash = blobHash
        self.mediaType = mediaType
        self.filename = filename
        self.width = width
        self.height = height
        self.orientation = orientation
        self.metadata = metadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.clock = clock
    }

    /// The row of `attachment` as of `clock` (its byte count and state are the blob's row).
    init(_ attachment: Attachment, clock: ClockStamp) {
        self.init(
            id: attachment.id.rawValue, noteId: attachment.noteID.rawValue, position: attachment.position,
            blobHash: attachment.blobHash.rawValue, mediaType: attachment.mediaType, filename: attachment.filename,
            width: attachment.image?.width, height: attachment.image?.height, orientation: attachment.image?.orientation,
            metadata: attachment.metadata, createdAt: attachment.createdAt, updatedAt: attachment.updatedAt, clock: clock.rawValue
        )
    }

    /// ``blobHash`` as a ``BlobHash``, the only way it becomes a path.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` for a malformed one.
    var validatedHash: BlobHash {
        get throws(AttachmentStore.Error) { try BlobHash(catalog: blobHash, table: "attachment", column: "blobHash", row: id) }
    }

    init(row: SQLRow) throws {
        id = try row.requiredString("id")
        noteId = try row.requiredString("noteId")
        position = Int(try row.requiredInt64("position"))
        blobHash = try row.requiredString("blobHash")
        mediaType = try row.requiredString("mediaType")
        filename = try row.requiredString("filename")
        width = try row.int("width")
        height = try row.int("height")
        orientation = try row.int("orientation")
        metadata = try Self.metadata(try row.string("metadata") ?? "{}")
        createdAt = try row.requiredDate("createdAt")
        updatedAt = try row.requiredDate("updatedAt")
        clock = try row.string("clock") ?? ""
        trashedAt = try row.date("trashedAt")
    }

    /// The metadata column's JSON object of strings; most attachments have none (`{}`), which
    /// is read without a decoder.
    static func metadata(_ json: String) throws(SQLDecodingError) -> [String: String] {
        if json == "{}" { return [:] }
        guard let metadata = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) else {
            throw SQLDecodingError(column: "metadata", reason: "holds \(json.prefix(40)), not a JSON object of strings")
        }
        return metadata
    }

    /// The metadata as a JSON object with sorted keys (so equal metadata is equal text); `{}`
    /// for none, written without an encoder.
    private static func json(_ metadata: [String: String]) -> String {
        guard !metadata.isEmpty else { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(metadata)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The columns a row is written with, and each one's value: the one list inserts and
    /// upserts are built from.
    static let columns = SQLColumns<AttachmentRecord>(table: "attachment", key: ["id"], [
        .init("id") { .text($0.id) },
        .init("noteId") { .text($0.noteId) },
        .init("position") { .integer(Int64($0.position)) },
        .init("blobHash") { .text($0.blobHash) },
        .init("mediaType") { .text($0.mediaType) },
        .init("filename") { .text($0.filename) },
        .init("width") { .integer($0.width) },
        .init("height") { .integer($0.height) },
        .init("orientation") { .integer($0.orientation) },
        .init("metadata") { .text(json($0.metadata)) },
        .init("createdAt") { .date($0.createdAt) },
        .init("updatedAt") { .date($0.updatedAt) },
        .init("clock") { .text($0.clock) },
        .init("trashedAt") { $0.trashedAt.map(SQLValue.date) ?? .null },
    ])

    /// Inserts the row.
    func insert(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.insert, Self.columns.arguments(of: self))
    }

    /// Inserts the row, or replaces every field of the row with its id.
    func save(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.upsert, Self.columns.arguments(of: self))
    }

    /// Writes every field of the existing row with this id.
    func update(_ db: any SQLTransaction) throws { try save(db) }

    /// The attachment with `id`, if any.
    static func fetch(_ id: String, in db: any SQLTransaction) throws -> AttachmentRecord? {
        try db.queryOne("SELECT * FROM attachment WHERE id = ?", [.text(id)]).map(AttachmentRecord.init(row:))
    }

    /// The attachment with `id` if it exists and neither it nor its note is in the trash.
    static func fetchLive(_ id: String, in db: any SQLTransaction) throws -> AttachmentRecord? {
        guard let record = try fetch(id, in: db), record.trashedAt == nil, try NoteRecord.isLive(record.noteId, in: db) else { return nil }
        return record
    }

    /// What an attachment of the store records of the original hashing to `hash`, when the store
    /// holds those bytes (the blob's row says present): any attachment of them will do, in the
    /// trash or not, since they all describe the same bytes.
    static func heldOriginal(_ hash: BlobHash, in db: any SQLTransaction) throws -> OriginalFacts? {
        guard let row = try db.queryOne("""
            SELECT attachment.mediaType, attachment.width, attachment.height, attachment.orientation, blob.byteCount
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash
            WHERE attachment.blobHash = ? AND blob.state = 'present'
            LIMIT 1
            """, [.text(hash.rawValue)])
        else { return nil }
        return OriginalFacts(hash: hash, byteCount: try row.requiredInt64("byteCount"), mediaType: try row.requiredString("mediaType"),
                             width: try row.int("width"), height: try row.int("height"), orientation: try row.int("orientation"))
    }

    /// The condition, on the `attachment` table, of a row in its note's order: not in the trash
    /// on its own. (Its note's trash state is checked by whoever lists the note.)
    static let inOrder = "attachment.trashedAt IS NULL"

    /// Every attachment.
    static func all(in db: any SQLTransaction) throws -> [AttachmentRecord] {
        try db.query("SELECT * FROM attachment", []).map(AttachmentRecord.init(row:))
    }

    /// Deletes the attachment with `id`.
    static func delete(_ id: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM attachment WHERE id = ?", [.text(id)])
    }

    /// How many attachments a note has (not counting those in the trash).
    static func count(inNote noteId: String, in db: any SQLTransaction) throws -> Int {
        Int(try db.queryOne("SELECT COUNT(*) AS n FROM attachment WHERE noteId = ? AND \(inOrder)", [.text(noteId)])?.int64("n") ?? 0)
    }

    /// The next free position at the end of a note's attachments (after those in the trash
    /// too, which keep their place for a restore).
    static func nextPosition(inNote noteId: String, in db: any SQLTransaction) throws -> Int {
        Int(try db.queryOne("SELECT COALESCE(MAX(position) + 1, 0) AS next FROM attachment WHERE noteId = ?", [.text(noteId)])?
            .int64("next") ?? 0)
    }

    /// Gives a note's attachments the positions `0..<count` in their order (stored position, then
    /// id), changing, and stamping with `clock` so that the change syncs, only those whose
    /// position differs: it closes the gap a removed attachment left, and separates attachments
    /// that concurrent adds or moves on different peers left at one position. Local edits of a
    /// note's order start from it, so they work on dense positions. Attachments in the trash
    /// keep their stored position: restored, one comes back about where it was.
    static func renumber(inNote noteId: String, clock: ClockStamp, in db: any SQLTransaction) throws {
        let rows = try db.query("SELECT id, position FROM attachment WHERE noteId = ? AND \(inOrder) ORDER BY position, id", [.text(noteId)])
        for (index, row) in rows.enumerated() where try row.requiredInt64("position") != Int64(index) {
            try db.execute("UPDATE attachment SET position = ?, clock = ? WHERE id = ?",
                           [.integer(Int64(index)), .text(clock.rawValue), .text(try row.requiredString("id"))])
        }
    }

    /// Where an attachment stands in its note's order (stored position, then id): how many come
    /// before it. This, not the stored position, is the position an ``Attachment`` reports, so
    /// no two report the same one even while peers' concurrent adds share a stored position.
    static func rank(of record: AttachmentRecord, in db: any SQLTransaction) throws -> Int {
        Int(try db.queryOne("""
            SELECT COUNT(*) AS n FROM attachment WHERE noteId = ? AND \(inOrder) AND (position < ? OR (position = ? AND id < ?))
            """, [.text(record.noteId), .integer(Int64(record.position)), .integer(Int64(record.position)), .text(record.id)])?
            .int64("n") ?? 0)
    }

    /// The stored position and id of the attachment at `rank` of a note's order, if it has one.
    static func key(atRank rank: Int, inNote noteId: String, in db: any SQLTransaction) throws -> (position: Int64, id: String)? {
        guard rank >= 0, let row = try db.queryOne("SELECT position, id FROM attachment WHERE noteId = ? AND \(inOrder) ORDER BY position, id LIMIT 1 OFFSET ?",
                                                   [.text(noteId), .integer(Int64(rank))]) else { return nil }
        return (try row.requiredInt64("position"), try row.requiredString("id"))
    }
}

/// An attachment row joined with its blob's size and state: everything ``Attachment`` needs.
struct AttachmentRow: Sendable {
    var attachment: AttachmentRecord
    var byteCount: Int64
    var state: BlobRecord.State

    init(attachment: AttachmentRecord, byteCount: Int64, state: BlobRecord.State) {
        self.attachment = attachment
        self.byteCount = byteCount
        self.state = state
    }

    init(row: SQLRow) throws {
        attachment = try AttachmentRecord(row: row)
        byteCount = try row.requiredInt64("blobByteCount")
        state = BlobRecord.State(rawValue: try row.requiredString("blobState")) ?? .remote
    }

    /// Rows joined as ``AttachmentRow`` expects, filtered by `condition`, ordered by note, then
    /// position, then id (the order every peer agrees on), at most `limit` of them.
    static func fetchAll(_ db: any SQLTransaction, where condition: String = "1 = 1", arguments: [SQLValue] = [],
                         limit: Int? = nil) throws -> [AttachmentRow] {
        try db.query("""
            SELECT attachment.*, blob.byteCount AS blobByteCount, blob.state AS blobState
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash
            WHERE \(condition)
            ORDER BY attachment.noteId, attachment.position, attachment.id
            """ + (limit == nil ? "" : " LIMIT ?"), arguments + (limit.map { [.integer(Int64($0))] } ?? [])).map(AttachmentRow.init(row:))
    }

    /// The public values of `rows`, in order, each reporting its rank in its note as its
    /// position: rows of one note must be consecutive and in order, the first of a note at
    /// `firstRank` (0 unless the rows are a later page of one note).
    static func ranked(_ rows: [AttachmentRow], firstRank: Int = 0) throws(AttachmentStore.Error) -> [Attachment] {
        var values: [Attachment] = []
        var rank = firstRank
        for (index, row) in rows.enumerated() {
            if index > 0 && rows[index - 1].attachment.noteId != row.attachment.noteId { rank = 0 }
            var value = try row.value
            value.position = rank
            values.append(value)
            rank += 1
        }
        return values
    }

    /// The public value, reporting its stored position (the sync feed sends that; everything
    /// else reports the rank, see ``ranked(_:firstRank:)``).
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` when its blob hash is malformed.
    var value: Attachment {
        get throws(AttachmentStore.Error) { try makeValue() }
    }

    private func makeValue() throws(AttachmentStore.Error) -> Attachment {
        let record = attachment
        let image: Attachment.ImageInfo? = if let width = record.width, let height = record.height {
            Attachment.ImageInfo(width: width, height: height, orientation: record.orientation ?? 1)
        } else {
            nil
        }
        return Attachment(
            id: AttachmentID(rawValue: record.id), noteID: NoteID(rawValue: record.noteId),
            position: record.position, blobHash: try record.validatedHash,
            byteCount: byteCount, mediaType: record.mediaType, filename: record.filename,
            image: image, metadata: record.metadata, createdAt: record.createdAt,
            updatedAt: record.updatedAt, state: Attachment.State(state)
        )
    }
}

extension Attachment.State {
    /// The state an attachment reports for its blob's catalog state (``fetching`` is found on
    /// disk, by ``AttachmentStore``, not in the catalog).
    init(_ blob: BlobRecord.State) {
        switch blob {
        case .present: self = .present
        case .remote: self = .remote
        case .evicted: self = .evicted
        case .damaged: self = .damaged
        }
    }
}
