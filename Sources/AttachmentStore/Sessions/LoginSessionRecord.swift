import CatalogSQL
import Crypto
import Foundation

/// The `loginSession` table (migration `v15`): values kept for a store's servers under a secret
/// key, by the key's SHA-256, each until it expires.
enum LoginSessionRecord {
    /// The column value of `key`: its SHA-256 in hex. Whoever reads the catalog (or a backup of
    /// it) learns no key a browser could present.
    static func keyHash(_ key: String) -> String {
        BlobHash(digest: SHA256.hash(data: Data(key.utf8))).rawValue
    }

    /// The columns a session is written with, and each one's value (the key as its hash).
    static let columns = SQLColumns<(key: String, value: String, expiresAt: Date?)>(table: "loginSession", key: ["keyHash"], [
        .init("keyHash") { .text(keyHash($0.key)) },
        .init("value") { .text($0.value) },
        .init("expiresAt") { $0.expiresAt.map(SQLValue.date) ?? .null },
    ])

    /// Inserts `value` under `key` unless a live one is there (an expired one is replaced);
    /// whether it was inserted.
    static func insert(key: String, value: String, expiresAt: Date?, now: Date, in db: any SQLTransaction) throws -> Bool {
        let hash = keyHash(key)
        _ = try db.execute("DELETE FROM loginSession WHERE keyHash = ? AND expiresAt <= ?", [.text(hash), .date(now)])
        return try db.execute(columns.insertIfAbsent, columns.arguments(of: (key, value, expiresAt))) == 1
    }

    /// Stores `value` under `key`, keeping the expiry already there when `expiresAt` is `nil`.
    static func upsert(key: String, value: String, expiresAt: Date?, in db: any SQLTransaction) throws {
        _ = try db.execute(columns.insert + """
             ON CONFLICT (keyHash) DO UPDATE SET value = excluded.value, expiresAt = COALESCE(excluded.expiresAt, loginSession.expiresAt)
            """, columns.arguments(of: (key, value, expiresAt)))
    }

    /// The live value under `key` and when it expires; `nil` when there is none or it expired.
    static func find(key: String, now: Date, in db: any SQLTransaction) throws -> (value: String, expiresAt: Date?)? {
        guard let row = try db.queryOne("SELECT value, expiresAt FROM loginSession WHERE keyHash = ? AND (expiresAt IS NULL OR expiresAt > ?)",
                                        [.text(keyHash(key)), .date(now)])
        else { return nil }
        return (try row.requiredString("value"), try row.date("expiresAt"))
    }

    /// Deletes the value under `key`.
    static func delete(key: String, in db: any SQLTransaction) throws {
        _ = try db.execute("DELETE FROM loginSession WHERE keyHash = ?", [.text(keyHash(key))])
    }

    /// Deletes every value expired at `now`; how many.
    static func deleteExpired(now: Date, in db: any SQLTransaction) throws -> Int {
        try db.execute("DELETE FROM loginSession WHERE expiresAt IS NOT NULL AND expiresAt <= ?", [.date(now)])
    }
}
