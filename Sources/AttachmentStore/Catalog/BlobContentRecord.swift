import Foundation
import GRDB

/// A row of the `blobContent` table: a blob's bytes, for stores whose placement is ``BlobPlacement/catalog``.
struct BlobContentRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "blobContent"

    var hash: String
    var bytes: Data

    /// The bytes of `hash`, or `nil` when the catalog holds none.
    static func bytes(of hash: BlobHash, in db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT bytes FROM blobContent WHERE hash = ?", arguments: [hash.rawValue])
    }
}

/// The `storeSetting` table: facts fixed when the store was created.
enum StoreSetting {
    /// Reads a setting.
    static func value(_ key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM storeSetting WHERE key = ?", arguments: [key])
    }

    /// Records a setting unless it is already recorded; returns the recorded value.
    static func recordOnce(_ key: String, _ value: String, in db: Database) throws -> String {
        try db.execute(sql: "INSERT OR IGNORE INTO storeSetting (key, value) VALUES (?, ?)", arguments: [key, value])
        return try self.value(key, in: db) ?? value
    }
}
