import CatalogSQL
import Foundation

/// The trash, as rows: notes and attachments whose `trashedAt` is set (migration `v13`, which
/// indexes just those rows).
enum TrashRecord {
    /// Everything in the trash (only the item `id`, when given), newest first, each to be purged
    /// `retention` after it went there.
    static func items(retention: TimeInterval, id only: String? = nil, in db: any SQLTransaction) throws -> [TrashItem] {
        let condition = "trashedAt IS NOT NULL" + (only == nil ? "" : " AND id = ?")
        let argument: [SQLValue] = only.map { [.text($0)] } ?? []
        let rows = try db.query("SELECT id, title, trashedAt FROM note WHERE \(condition)", argument)
        let totals = try AttachmentRecord.liveTotals(ofNotes: try rows.map { try $0.requiredString("id") }, in: db)
        let notes = try rows.map { row in
            let trashedAt = try row.requiredDate("trashedAt")
            let id = try row.requiredString("id")
            let total = totals[id] ?? (0, 0)
            return TrashItem(id: id, kind: .note, noteID: NoteID(rawValue: id), title: try row.requiredString("title"),
                             trashedAt: trashedAt, purgeAt: trashedAt.addingTimeInterval(retention),
                             attachmentCount: total.count, byteCount: total.bytes)
        }
        let attachments = try AttachmentRecord.trashed(id: only, in: db).compactMap { row -> TrashItem? in
            let record = row.attachment
            guard let trashedAt = record.trashedAt else { return nil }
            return TrashItem(id: record.id, kind: .attachment, noteID: NoteID(rawValue: record.noteId), title: record.filename,
                             trashedAt: trashedAt, purgeAt: trashedAt.addingTimeInterval(retention),
                             attachmentCount: 1, byteCount: row.byteCount, mediaType: record.mediaType)
        }
        return (notes + attachments).sorted { ($0.trashedAt, $1.id) > ($1.trashedAt, $0.id) }
    }

    /// The identifiers of what is in the trash equal to `text` or starting with it, notes first,
    /// at most `limit` of each kind.
    static func ids(startingWith text: String, limit: Int, in db: any SQLTransaction) throws -> [(TrashItem.Kind, String)] {
        let range: [SQLValue] = [.text(text), .text(text + "\u{10FFFF}"), .integer(Int64(limit))]
        let notes = try db.query("SELECT id FROM note WHERE id >= ? AND id < ? AND trashedAt IS NOT NULL ORDER BY id LIMIT ?", range)
        let attachments = try AttachmentRecord.trashedIDs(startingWith: text, limit: limit, in: db)
        return try notes.map { (.note, try $0.requiredString("id")) } + attachments.map { (.attachment, $0) }
    }

    /// The notes and the attachments in the trash since before `cutoff` (all of them without one).
    static func due(before cutoff: Date?, in db: any SQLTransaction) throws -> (notes: [String], attachments: [String]) {
        let condition = cutoff == nil ? "trashedAt IS NOT NULL" : "trashedAt IS NOT NULL AND trashedAt < ?"
        let arguments: [SQLValue] = cutoff.map { [.date($0)] } ?? []
        return (try db.query("SELECT id FROM note WHERE \(condition)", arguments).map { try $0.requiredString("id") },
                try AttachmentRecord.trashedIDs(before: cutoff, in: db))
    }
}
