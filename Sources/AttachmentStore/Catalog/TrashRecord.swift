import CatalogSQL
import Foundation

/// The trash, as rows: notes and attachments whose `trashedAt` is set (migration `v13`, which
/// indexes just those rows).
enum TrashRecord {
    /// Everything in the trash (only the item `id`, when given), newest first, each to be purged
    /// `retention` after it went there.
    static func items(retention: TimeInterval, id only: String? = nil, in db: any SQLTransaction) throws -> [TrashItem] {
        let one = only == nil ? "" : " AND note.id = ?"
        let oneAttachment = only == nil ? "" : " AND attachment.id = ?"
        let argument: [SQLValue] = only.map { [.text($0)] } ?? []
        let notes = try db.query("""
            SELECT note.id, note.title, note.trashedAt,
                   (SELECT COUNT(*) FROM attachment WHERE attachment.noteId = note.id AND attachment.trashedAt IS NULL) AS attachments,
                   (SELECT COALESCE(SUM(blob.byteCount), 0) FROM attachment JOIN blob ON blob.hash = attachment.blobHash
                     WHERE attachment.noteId = note.id AND attachment.trashedAt IS NULL) AS bytes
            FROM note WHERE note.trashedAt IS NOT NULL\(one)
            """, argument).map { row in
            let trashedAt = try row.requiredDate("trashedAt")
            let id = try row.requiredString("id")
            return TrashItem(id: id, kind: .note, noteID: NoteID(rawValue: id), title: try row.requiredString("title"),
                             trashedAt: trashedAt, purgeAt: trashedAt.addingTimeInterval(retention),
                             attachmentCount: Int(try row.requiredInt64("attachments")), byteCount: try row.requiredInt64("bytes"))
        }
        let attachments = try db.query("""
            SELECT attachment.id, attachment.noteId, attachment.filename, attachment.mediaType, attachment.trashedAt, blob.byteCount
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash WHERE attachment.trashedAt IS NOT NULL\(oneAttachment)
            """, argument).map { row in
            let trashedAt = try row.requiredDate("trashedAt")
            return TrashItem(id: try row.requiredString("id"), kind: .attachment, noteID: NoteID(rawValue: try row.requiredString("noteId")),
                             title: try row.requiredString("filename"), trashedAt: trashedAt, purgeAt: trashedAt.addingTimeInterval(retention),
                             attachmentCount: 1, byteCount: try row.requiredInt64("byteCount"), mediaType: try row.requiredString("mediaType"))
        }
        return (notes + attachments).sorted { ($0.trashedAt, $1.id) > ($1.trashedAt, $0.id) }
    }

    /// The identifiers of what is in the trash equal to `text` or starting with it, notes first,
    /// at most `limit` of each kind.
    static func ids(startingWith text: String, limit: Int, in db: any SQLTransaction) throws -> [(TrashItem.Kind, String)] {
        let range: [SQLValue] = [.text(text), .text(text + "\u{10FFFF}"), .integer(Int64(limit))]
        let notes = try db.query("SELECT id FROM note WHERE id >= ? AND id < ? AND trashedAt IS NOT NULL ORDER BY id LIMIT ?", range)
        let attachments = try db.query("SELECT id FROM attachment WHERE id >= ? AND id < ? AND trashedAt IS NOT NULL ORDER BY id LIMIT ?", range)
        return try notes.map { (.note, try $0.requiredString("id")) } + attachments.map { (.attachment, try $0.requiredString("id")) }
    }

    /// The notes and the attachments in the trash since before `cutoff` (all of them without one).
    static func due(before cutoff: Date?, in db: any SQLTransaction) throws -> (notes: [String], attachments: [String]) {
        let condition = cutoff == nil ? "trashedAt IS NOT NULL" : "trashedAt IS NOT NULL AND trashedAt < ?"
        let arguments: [SQLValue] = cutoff.map { [.date($0)] } ?? []
        return (try db.query("SELECT id FROM note WHERE \(condition)", arguments).map { try $0.requiredString("id") },
                try db.query("SELECT id FROM attachment WHERE \(condition)", arguments).map { try $0.requiredString("id") })
    }
}
