import CatalogSQL

/// The `storeSetting` table: facts fixed when the store was created, and sync cursors.
enum StoreSetting {
    /// Reads a setting.
    static func value(_ key: String, in db: any SQLTransaction) throws -> String? {
        try db.queryOne("SELECT value FROM storeSetting WHERE key = ?", [.text(key)])?.string("value")
    }

    /// The columns a setting is written with, and each one's value.
    static let columns = SQLColumns<(key: String, value: String)>(table: "storeSetting", key: ["key"], [
        .init("key") { .text($0.key) },
        .init("value") { .text($0.value) },
    ])

    /// Records a setting unless it is already recorded; returns the recorded value.
    static func recordOnce(_ key: String, _ value: String, in db: any SQLTransaction) throws -> String {
        try db.execute(columns.insertIfAbsent, columns.arguments(of: (key, value)))
        return try self.value(key, in: db) ?? value
    }

    /// Adds one to a counting setting (missing counts as 0).
    static func increment(_ key: String, in db: any SQLTransaction) throws {
        try db.execute(columns.insert + " ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(storeSetting.value AS BIGINT) + 1 AS TEXT)",
                       columns.arguments(of: (key, "1")))
    }

    /// A counting setting's value (0 when missing).
    static func count(_ key: String, in db: any SQLTransaction) throws -> Int {
        Int(try value(key, in: db) ?? "0") ?? 0
    }

    /// Sets a setting, replacing its value.
    static func set(_ key: String, _ value: String, in db: any SQLTransaction) throws {
        try db.execute(columns.upsert, columns.arguments(of: (key, value)))
    }

    /// Removes a setting (nothing happens when it is missing).
    static func remove(_ key: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM storeSetting WHERE key = ?", [.text(key)])
    }

    /// The keys that start with `prefix`, in the catalog's order of keys. `prefix` is compared
    /// as text, character for character: `%` and `_` in it are not patterns, and case counts.
    static func keys(withPrefix prefix: String, in db: any SQLTransaction) throws -> [String] {
        // The length is cast: PostgreSQL has no substr(text, integer, bigint), and a bound
        // integer arrives as a bigint.
        try db.query("SELECT key FROM storeSetting WHERE substr(key, 1, CAST(? AS INTEGER)) = ? ORDER BY key",
                     [.integer(Int64(prefix.unicodeScalars.count)), .text(prefix)]).map { try $0.requiredString("key") }
    }
}
