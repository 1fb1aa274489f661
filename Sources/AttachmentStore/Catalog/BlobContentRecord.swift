import CatalogSQL
import Foundation

/// The `blobContent` table: a blob's bytes, for stores whose placement is ``BlobPlacement/catalog``.
enum BlobContentRecord {
    /// The bytes of `hash`, or `nil` when the catalog holds none.
    static func bytes(of hash: BlobHash, in db: any SQLTransaction) throws -> Data? {
        try db.queryOne("SELECT bytes FROM blobContent WHERE hash = ?", [.text(hash.rawValue)])?.data("bytes")
    }

    /// Whether the catalog holds the bytes of `hash`.
    static func exists(_ hash: BlobHash, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM blobContent WHERE hash = ?) AS found", [.text(hash.rawValue)])?.bool("found") ?? false
    }

    /// Stores the bytes of `hash`.
    static func insert(_ hash: BlobHash, bytes: Data, in db: any SQLTransaction) throws {
        try db.execute("INSERT INTO blobContent (hash, bytes) VALUES (?, ?)", [.text(hash.rawValue), .blob(bytes)])
    }
}

/// The `storeSetting` table: facts fixed when the store was created, and sync cursors.
enum StoreSetting {
    /// Reads a setting.
    static func value(_ key: String, in db: any SQLTransaction) throws -> String? {
        try db.queryOne("SELECT value FROM storeSetting WHERE key = ?", [.text(key)])?.string("value")
    }

    /// Records a setting unless it is already recorded; returns the recorded value.
    static func recordOnce(_ key: String, _ value: String, in db: any SQLTransaction) throws -> String {
        try db.execute("INSERT INTO storeSetting (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", [.text(key), .text(value)])
        return try self.value(key, in: db) ?? value
    }

    /// Adds one to a counting setting (missing counts as 0).
    static func increment(_ key: String, in db: any SQLTransaction) throws {
        try db.execute("""
            INSERT INTO storeSetting (key, value) VALUES (?, '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(storeSetting.value AS BIGINT) + 1 AS TEXT)
            """, [.text(key)])
    }

    /// A counting setting's value (0 when missing).
    static func count(_ key: String, in db: any SQLTransaction) throws -> Int {
        Int(try value(key, in: db) ?? "0") ?? 0
    }

    /// Sets a setting, replacing its value.
    static func set(_ key: String, _ value: String, in db: any SQLTransaction) throws {
        try db.execute("INSERT INTO storeSetting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                       [.text(key), .text(value)])
    }
}
