import Foundation
import GRDB

/// A row of the `imageEntry` table: the key-value image store's key → blob mapping.
struct ImageEntryRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "imageEntry"

    /// Column names, for queries.
    enum Columns {
        static let key = Column("key")
        static let blobHash = Column("blobHash")
    }

    var key: String
    var blobHash: String
    var mediaType: String
    var updatedAt: Date
}
