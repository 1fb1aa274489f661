import Foundation
import GRDB

/// A row of the `attachment` table.
struct AttachmentRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "attachment"

    /// Column names, for queries.
    enum Columns {
        static let id = Column("id")
        static let noteId = Column("noteId")
        static let position = Column("position")
        static let blobHash = Column("blobHash")
        static let createdAt = Column("createdAt")
    }

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

    /// The next free position at the end of a note's attachments.
    static func nextPosition(inNote noteId: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM attachment WHERE noteId = ?",
                         arguments: [noteId]) ?? 0
    }

    /// Closes the gap a removed attachment left, so positions stay 0..<count.
    static func closeGap(at position: Int, inNote noteId: String, clock: ClockStamp, in db: Database) throws {
        try db.execute(sql: "UPDATE attachment SET position = position - 1, clock = ? WHERE noteId = ? AND position > ?",
                       arguments: [clock.rawValue, noteId, position])
    }
}

/// An attachment row joined with its blob's size and state: everything ``Attachment`` needs.
struct AttachmentRow: Decodable, FetchableRecord, Sendable {
    var attachment: AttachmentRecord
    var byteCount: Int64
    var state: BlobRecord.State

    init(attachment: AttachmentRecord, byteCount: Int64, state: BlobRecord.State) {
        self.attachment = attachment
        self.byteCount = byteCount
        self.state = state
    }

    init(row: Row) throws {
        attachment = try AttachmentRecord(row: row)
        byteCount = row["byteCount"]
        state = row["state"]
    }

    /// Rows joined as ``AttachmentRow`` expects, filtered by `condition` and ordered by note then position.
    static func fetchAll(_ db: Database, where condition: String = "1", arguments: StatementArguments = []) throws -> [AttachmentRow] {
        try fetchAll(db, sql: """
            SELECT attachment.*, blob.byteCount AS byteCount, blob.state AS state
            FROM attachment JOIN blob ON blob.hash = attachment.blobHash
            WHERE \(condition)
            ORDER BY attachment.noteId, attachment.position
            """, arguments: arguments)
    }

    /// The public value.
    var value: Attachment {
        let record = attachment
        let image: Attachment.ImageInfo? = if let width = record.width, let height = record.height {
            Attachment.ImageInfo(width: width, height: height, orientation: record.orientation ?? 1)
        } else {
            nil
        }
        return Attachment(
            id: AttachmentID(rawValue: record.id), noteID: NoteID(rawValue: record.noteId),
            position: record.position, blobHash: BlobHash(trusted: record.blobHash),
            byteCount: byteCount, mediaType: record.mediaType, filename: record.filename,
            image: image, metadata: record.metadata, createdAt: record.createdAt,
            updatedAt: record.updatedAt, availability: state == .present ? .local : .remote
        )
    }
}
