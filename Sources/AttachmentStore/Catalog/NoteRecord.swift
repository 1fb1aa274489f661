import Foundation
import GRDB

/// A row of the `note` table.
struct NoteRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "note"

    /// Column names, for queries.
    enum Columns {
        static let id = Column("id")
        static let title = Column("title")
        static let body = Column("body")
        static let createdAt = Column("createdAt")
        static let updatedAt = Column("updatedAt")
    }

    var id: String
    var title: String
    var body: String
    var createdAt: Date
    var updatedAt: Date
    /// When it last changed, by the clock of the peer that changed it (empty before sync existed).
    var clock: String = ""

    init(_ note: Note) {
        id = note.id.rawValue
        title = note.title
        body = note.body
        createdAt = note.createdAt
        updatedAt = note.updatedAt
    }

    /// The public value.
    var note: Note {
        Note(id: NoteID(rawValue: id), title: title, body: body, createdAt: createdAt, updatedAt: updatedAt)
    }
}

extension QueryInterfaceRequest<NoteRecord> {
    /// Notes whose title or body contains `text` (case-insensitive for ASCII), newest first.
    func matching(_ text: String?) -> Self {
        guard let text, !text.isEmpty else { return self }
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return filter(sql: "(title LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')", arguments: [pattern, pattern])
    }
}
