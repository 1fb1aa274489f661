import CatalogSQL
import Imaging

extension AttachmentRow {
    /// The row of the attachment `id`, in the trash or not.
    static func fetch(_ id: String, in db: any SQLTransaction) throws -> AttachmentRow? {
        try fetchAll(db, where: "attachment.id = ?", arguments: [.text(id)]).first
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
            FROM attachment WHERE noteId IN (\(placeholders(notes.count))) AND \(AttachmentRecord.inOrder)) AS ranked WHERE place <= ?)
            """, arguments: notes.map(SQLValue.text) + [.integer(Int64(first))])
    }
}

extension AttachmentRecord {
    /// How many attachments each of `notes` has outside the trash; a note without any is
    /// missing from the answer.
    static func counts(inNotes notes: [String], in db: any SQLTransaction) throws -> [String: Int] {
        guard !notes.isEmpty else { return [:] }
        var counts: [String: Int] = [:]
        for row in try db.query("""
            SELECT noteId, COUNT(*) AS n FROM attachment WHERE noteId IN (\(placeholders(notes.count))) AND \(inOrder) GROUP BY noteId
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

/// `?, ?, …`: the placeholders of an `IN` list of `count` values.
private func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

extension AttachmentRecord {
    /// Some attachment of the content `hash` (in the trash or not), if one exists.
    static func anyHolder(of hash: BlobHash, in db: any SQLTransaction) throws -> String? {
        try db.queryOne("SELECT id FROM attachment WHERE blobHash = ? LIMIT 1", [.text(hash.rawValue)])?.requiredString("id")
    }

    /// The media type recorded for the content `hash` by any attachment of it, if one exists.
    static func recordedMediaType(of hash: BlobHash, in db: any SQLTransaction) throws -> String? {
        try db.queryOne("SELECT mediaType FROM attachment WHERE blobHash = ? LIMIT 1", [.text(hash.rawValue)])?.requiredString("mediaType")
    }

    /// Gives every attachment of the content `hash` the media type and image header its bytes
    /// were found to have (a peer's claim is replaced once the bytes arrive).
    static func setFacts(ofContent hash: BlobHash, mediaType: String, image: ImageHeader?, in db: any SQLTransaction) throws {
        try db.execute("UPDATE attachment SET mediaType = ?, width = ?, height = ?, orientation = ? WHERE blobHash = ?", [
            .text(mediaType), .integer(image?.width), .integer(image?.height), .integer(image?.orientation), .text(hash.rawValue),
        ])
    }
}
