import CatalogSQL
import Foundation
import Imaging

// Every statement on the `attachment` table. With the schema and `AttachmentRecord.swift`, this
// is the only file of the core that names the attachment's columns (`scripts/check-house.sh`).

extension AttachmentRecord {
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
            SELECT attachment.mediaType, attachment.width, attachment.height, attachment.orientation, attachment.durationMilliseconds,
                   attachment.pageCount, attachment.embeddedVideoOffset, attachment.contentIdentifier, blob.byteCount
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash
            WHERE attachment.blobHash = ? AND blob.state = 'present'
            LIMIT 1
            """, [.text(hash.rawValue)])
        else { return nil }
        var record = AttachmentRecord(id: "", noteId: "", position: 0, blobHash: hash.rawValue, mediaType: "", filename: "", image: nil,
                                      metadata: [:], createdAt: .distantPast, updatedAt: .distantPast, clock: "")
        (record.width, record.height, record.orientation, record.durationMilliseconds, record.pageCount, record.embeddedVideoOffset) =
            (try row.int("width"), try row.int("height"), try row.int("orientation"), try row.int("durationMilliseconds"), try row.int("pageCount"),
             try row.int("embeddedVideoOffset"))
        return OriginalFacts(hash: hash, byteCount: try row.requiredInt64("byteCount"), mediaType: try row.requiredString("mediaType"),
                             image: record.image, contentIdentifier: try row.string("contentIdentifier"))
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

extension AttachmentRow {
    /// Rows joined as ``AttachmentRow`` expects, filtered by `condition`, ordered by note, then
    /// position, then id (the order every peer agrees on) unless `inNoteOrder` is false (a
    /// lookup by ids or a filter that no order index serves, whose caller orders or keys the
    /// rows itself), at most `limit` of them.
    static func fetchAll(_ db: any SQLTransaction, where condition: String = "1 = 1", arguments: [SQLValue] = [],
                         inNoteOrder: Bool = true, limit: Int? = nil) throws -> [AttachmentRow] {
        try db.query("""
            SELECT attachment.*, blob.byteCount AS blobByteCount, blob.state AS blobState,
                   motionBlob.byteCount AS motionByteCount, motionBlob.state AS motionState
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash
            LEFT JOIN blob AS motionBlob ON motionBlob.hash = attachment.motionHash
            WHERE \(condition)
            """ + (inNoteOrder ? "\nORDER BY attachment.noteId, attachment.position, attachment.id" : "")
                + (limit == nil ? "" : " LIMIT ?"), arguments + (limit.map { [.integer(Int64($0))] } ?? [])).map(AttachmentRow.init(row:))
    }

    /// The row of the attachment `id`, in the trash or not.
    static func fetch(_ id: String, in db: any SQLTransaction) throws -> AttachmentRow? {
        try fetchAll(db, where: "attachment.id = ?", arguments: [.text(id)], inNoteOrder: false).first
    }

    /// The rows of the attachments `ids` that exist, in the trash or not, by id.
    static func fetch(ids: [String], in db: any SQLTransaction) throws -> [String: AttachmentRow] {
        var rows: [String: AttachmentRow] = [:]
        for chunk in SQLPlaceholders.chunks(ids) {
            for row in try fetchAll(db, where: "attachment.id IN (\(SQLPlaceholders.list(chunk.count)))", arguments: chunk.map(SQLValue.text),
                                    inNoteOrder: false) {
                rows[row.attachment.id] = row
            }
        }
        return rows
    }

    /// A note's attachments in its order (stored position, then id), leaving out those in the
    /// trash on their own; after the attachment whose stored key is `key` when one is given, at
    /// most `limit` when one is given. Read off the `(noteId, position, id)` index.
    static func inOrder(ofNote noteId: String, after key: (position: Int64, id: String)? = nil, limit: Int? = nil,
                        in db: any SQLTransaction) throws -> [AttachmentRow] {
        guard let key else {
            return try fetchAll(db, where: "attachment.noteId = ? AND \(AttachmentRecord.inOrder)", arguments: [.text(noteId)], limit: limit)
        }
        return try fetchAll(
            db, where: "attachment.noteId = ? AND \(AttachmentRecord.inOrder) AND (attachment.position > ? OR (attachment.position = ? AND attachment.id > ?))",
            arguments: [.text(noteId), .integer(key.position), .integer(key.position), .text(key.id)], limit: limit)
    }

    /// Every attachment outside the trash (neither it nor its note there), grouped by note and
    /// in each note's order.
    static func allOutsideTrash(in db: any SQLTransaction) throws -> [AttachmentRow] {
        try fetchAll(db, where: """
            \(AttachmentRecord.inOrder)
            AND NOT EXISTS (SELECT 1 FROM note WHERE note.id = attachment.noteId AND note.trashedAt IS NOT NULL)
            """)
    }

    /// The first `first` attachments of each of `notes` in its order, in one read (ranked by
    /// each note's own order), grouped by note.
    static func firstOfEach(_ notes: [String], first: Int, in db: any SQLTransaction) throws -> [AttachmentRow] {
        guard !notes.isEmpty, first > 0 else { return [] }
        return try fetchAll(db, where: """
            attachment.id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY noteId ORDER BY position, id) AS place
            FROM attachment WHERE noteId IN (\(SQLPlaceholders.list(notes.count))) AND \(AttachmentRecord.inOrder)) AS ranked WHERE place <= ?)
            """, arguments: notes.map(SQLValue.text) + [.integer(Int64(first))])
    }
}

extension AttachmentRecord {
    /// The clocks of the attachments `ids` that exist, by id (the `id` index alone).
    static func clocks(ids: [String], in db: any SQLTransaction) throws -> [String: String] {
        var clocks: [String: String] = [:]
        for chunk in SQLPlaceholders.chunks(ids) {
            for row in try db.query("SELECT id, clock FROM attachment WHERE id IN (\(SQLPlaceholders.list(chunk.count)))", chunk.map(SQLValue.text)) {
                clocks[try row.requiredString("id")] = try row.string("clock") ?? ""
            }
        }
        return clocks
    }

    /// How many attachments each of `notes` has outside the trash; a note without any is
    /// missing from the answer.
    static func counts(inNotes notes: [String], in db: any SQLTransaction) throws -> [String: Int] {
        guard !notes.isEmpty else { return [:] }
        var counts: [String: Int] = [:]
        for row in try db.query("""
            SELECT noteId, COUNT(*) AS n FROM attachment WHERE noteId IN (\(SQLPlaceholders.list(notes.count))) AND \(inOrder) GROUP BY noteId
            """, notes.map(SQLValue.text)) {
            counts[try row.requiredString("noteId")] = Int(try row.int64("n") ?? 0)
        }
        return counts
    }

    /// Moves `record` to `target` in its note's order (a rank in `0..<count`): the note's
    /// positions become `0..<count` first, then every attachment whose position changes is
    /// stamped with `stamp`, so the new order syncs.
    static func move(_ record: AttachmentRecord, toRank target: Int, stamp: ClockStamp, in db: any SQLTransaction) throws {
        // To the end, so the others take 0..<count-1; then they make room at `target`.
        try db.execute("UPDATE attachment SET position = ? WHERE id = ?", [.integer(Int64(Int32.max)), .text(record.id)])
        try renumber(inNote: record.noteId, clock: stamp, in: db)
        try db.execute("""
            UPDATE attachment SET position = position + 1, clock = ? WHERE noteId = ? AND position >= ? AND id != ? AND \(inOrder)
            """, [.text(stamp.rawValue), .text(record.noteId), .integer(Int64(target)), .text(record.id)])
        var moved = record
        moved.position = target
        moved.clock = stamp.rawValue
        try moved.update(db)
    }
}


extension AttachmentRecord {
    /// Some attachment of the content `hash` (in the trash or not), if one exists.
    static func anyHolder(of hash: BlobHash, in db: any SQLTransaction) throws -> String? {
        try db.queryOne("SELECT id FROM attachment WHERE blobHash = ? LIMIT 1", [.text(hash.rawValue)])?.requiredString("id")
    }

    /// Gives every attachment of the content `hash` the media type and picture size its bytes
    /// were found to have (a peer's claim is replaced once the bytes arrive).
    static func setFacts(ofContent hash: BlobHash, mediaType: String, image: Attachment.ImageInfo?, in db: any SQLTransaction) throws {
        try db.execute("""
            UPDATE attachment SET mediaType = ?, width = ?, height = ?, orientation = ?, durationMilliseconds = ?, pageCount = ?, embeddedVideoOffset = ?
            WHERE blobHash = ?
            """, [
            .text(mediaType), .integer(image?.width), .integer(image?.height), .integer(image?.orientation),
            .integer(image?.durationMilliseconds), .integer(image?.pageCount), .integer(image?.embeddedVideoOffset), .text(hash.rawValue),
        ])
        // A Live Photo's clip of those bytes: the type and playing time found.
        try db.execute("UPDATE attachment SET motionMediaType = ?, motionDurationMilliseconds = ? WHERE motionHash = ?", [
            .text(mediaType), .integer(image?.durationMilliseconds), .text(hash.rawValue),
        ])
    }

    /// The attachment of `noteId` outside the trash that is the other half of a Live Photo whose
    /// identifier is `contentIdentifier`: a still without its clip, or a clip alone (a video).
    /// The first in the note's order when there are several.
    static func livePhotoPartner(inNote noteId: String, contentIdentifier: String, in db: any SQLTransaction) throws -> AttachmentRecord? {
        try db.queryOne("""
            SELECT * FROM attachment WHERE noteId = ? AND contentIdentifier = ? AND motionHash IS NULL AND \(inOrder)
            ORDER BY position, id LIMIT 1
            """, [.text(noteId), .text(contentIdentifier)]).map(AttachmentRecord.init(row:))
    }
}

extension AttachmentRecord {
    /// How many attachment rows the catalog has, in the trash or not.
    static func count(in db: any SQLTransaction) throws -> Int {
        Int(try db.queryOne("SELECT COUNT(*) AS n FROM attachment")?.int64("n") ?? 0)
    }

    /// A `SELECT` of the newest clock of any attachment (column `newest`), read off its index (`v8`).
    static let newestClockQuery = "SELECT MAX(clock) AS newest FROM attachment"

    /// A `SELECT` of the blob hash of every attachment (column `blobHash`), one row per attachment.
    static let blobHashesQuery = "SELECT blobHash FROM attachment"

    /// SQL that is true when some attachment's blob hash, or a Live Photo's clip hash, is
    /// `expression` (a column or `?`, which then takes two arguments).
    static func references(_ expression: String) -> String {
        "(EXISTS (SELECT 1 FROM attachment WHERE attachment.blobHash = \(expression)) OR EXISTS (SELECT 1 FROM attachment WHERE attachment.motionHash = \(expression)))"
    }
}

// MARK: - The trash

extension AttachmentRecord {
    /// For each of `notes`, how many attachments it has outside the trash and how many bytes
    /// their originals hold; a note with none is missing. Looked up by note (the `noteId` index).
    static func liveTotals(ofNotes notes: [String], in db: any SQLTransaction) throws -> [String: (count: Int, bytes: Int64)] {
        var totals: [String: (count: Int, bytes: Int64)] = [:]
        for chunk in SQLPlaceholders.chunks(notes) {
            for row in try db.query("""
                SELECT attachment.noteId, COUNT(*) AS n,
                       CAST(COALESCE(SUM(blob.byteCount), 0) + COALESCE(SUM(motionBlob.byteCount), 0) AS BIGINT) AS bytes
                FROM attachment JOIN blob ON blob.hash = attachment.blobHash
                LEFT JOIN blob AS motionBlob ON motionBlob.hash = attachment.motionHash
                WHERE attachment.noteId IN (\(SQLPlaceholders.list(chunk.count))) AND \(inOrder)
                GROUP BY attachment.noteId
                """, chunk.map(SQLValue.text)) {
                totals[try row.requiredString("noteId")] = (Int(try row.requiredInt64("n")), try row.requiredInt64("bytes"))
            }
        }
        return totals
    }

    /// The attachments in the trash on their own (only `id`, when given), with their originals' size.
    static func trashed(id only: String? = nil, in db: any SQLTransaction) throws -> [AttachmentRow] {
        try AttachmentRow.fetchAll(db, where: "attachment.trashedAt IS NOT NULL" + (only == nil ? "" : " AND attachment.id = ?"),
                                   arguments: only.map { [.text($0)] } ?? [], inNoteOrder: false)
    }

    /// The ids of attachments in the trash equal to `text` or starting with it, at most `limit`.
    static func trashedIDs(startingWith text: String, limit: Int, in db: any SQLTransaction) throws -> [String] {
        try db.query("SELECT id FROM attachment WHERE id >= ? AND id < ? AND trashedAt IS NOT NULL ORDER BY id LIMIT ?",
                     [.text(text), .text(text + "\u{10FFFF}"), .integer(Int64(limit))]).map { try $0.requiredString("id") }
    }

    /// The ids of attachments in the trash since before `cutoff` (all of them without one).
    static func trashedIDs(before cutoff: Date?, in db: any SQLTransaction) throws -> [String] {
        let condition = cutoff == nil ? "trashedAt IS NOT NULL" : "trashedAt IS NOT NULL AND trashedAt < ?"
        return try db.query("SELECT id FROM attachment WHERE \(condition)", cutoff.map { [.date($0)] } ?? []).map { try $0.requiredString("id") }
    }
}
