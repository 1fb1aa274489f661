import CatalogSQL
import Foundation
import GRDB

/// Rows a store's catalog refuses — blob hashes that are paths, file names that climb out of a
/// folder — written the way someone editing a catalog file, or handing over a crafted backup,
/// would: around the schema's checks. For the tests that prove nothing acts on them.
public enum HostileCatalog {
    /// A 64-character "hash" that, made into a blob path of the store at `root`
    /// (`root/blobs/sha256/<2>/<2>/<hash>`), names `target` instead: `..//`, slashes, then
    /// enough `../` to climb from `root` to `/` and `target`'s absolute path. `variant` moves the
    /// padding, for several different hashes naming the same file.
    public static func traversalHash(from root: URL, to target: URL, variant: Int = 0) -> String {
        let depth = root.standardizedFileURL.path(percentEncoded: false).split(separator: "/").count
        let climb = String(repeating: "../", count: depth + variant)
        let tail = String(target.standardizedFileURL.path(percentEncoded: false).dropFirst())
        let padding = 64 - 4 - climb.count - tail.count
        precondition(padding >= 0, "\(target.path) is too far down for a 64-character hash")
        return "..//" + String(repeating: "/", count: padding) + climb + tail
    }

    /// A 64-character "hash" that climbs one level out of the store (`..//`, slashes, `../`)
    /// to `relative`, a path beside the store folder.
    public static func siblingHash(_ relative: String) -> String {
        let padding = 64 - 4 - 3 - relative.count
        precondition(padding >= 0, "\(relative) is too long for a 64-character hash")
        return "..//" + String(repeating: "/", count: padding) + "../" + relative
    }

    /// What migration `v10` added to refuse malformed hashes, undone: the catalog as a crafted
    /// file or an older release would have it.
    public static func droppingHashChecks(_ dialect: SQLDialect) -> [String] {
        BlobHashColumns.all.flatMap { column in
            let name = "\(column.table)_\(column.column)_is_sha256"
            return switch dialect {
            case .sqlite: ["DROP TRIGGER IF EXISTS \(name)_insert", "DROP TRIGGER IF EXISTS \(name)_update"]
            case .postgres: ["ALTER TABLE \(column.table) DROP CONSTRAINT IF EXISTS \(name)"]
            }
        }
    }

    /// One crafted attachment: a note, a present blob row of `hash` (`byteCount` bytes) and an
    /// attachment `attachmentID` of that note referencing it under `filename`.
    /// With `addingBlob` false the blob row must exist already (a crafted file name on real bytes).
    public static func plantingAttachment(hash: String, byteCount: Int64 = 1, attachmentID: String = UUID().uuidString.lowercased(),
                                          filename: String = "crafted.jpg", addingBlob: Bool = true) -> [String] {
        let note = UUID().uuidString.lowercased()
        return (addingBlob ? [plantingBlob(hash: hash, byteCount: byteCount)] : []) + [
            "INSERT INTO note (id, title, body, createdAt, updatedAt, clock) VALUES (\(quoted(note)), 'crafted', '', \(now), \(now), '')",
            """
            INSERT INTO attachment (id, noteId, position, blobHash, mediaType, filename, metadata, createdAt, updatedAt, clock)
            VALUES (\(quoted(attachmentID)), \(quoted(note)), 0, \(quoted(hash)), 'image/jpeg', \(quoted(filename)), '{}', \(now), \(now), '')
            """,
        ]
    }

    /// A present blob row of `hash` that nothing references (what `gc` removes).
    public static func plantingBlob(hash: String, byteCount: Int64 = 1) -> String {
        "INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (\(quoted(hash)), \(byteCount), 'present', '2020-01-01 00:00:00.000')"
    }

    /// Runs `statements` on the SQLite catalog file at `path` with GRDB, with the schema's CHECK
    /// constraints and foreign keys off, after dropping `v10`'s triggers.
    public static func tamper(sqliteCatalog path: String, _ statements: [String]) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            for statement in droppingHashChecks(.sqlite) + statements { try db.execute(sql: statement) }
        }
        try queue.close()
    }

    /// The migration ids the SQLite catalog file at `path` records.
    public static func appliedMigrations(sqliteCatalog path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
    }

    /// Runs `statements` in `database` (any catalog) after dropping `v10`'s checks.
    public static func tamper(_ database: any SQLDatabase, _ statements: [String]) async throws {
        let all = droppingHashChecks(database.dialect) + statements
        try await database.write { transaction in
            for statement in all { _ = try transaction.execute(statement, []) }
        }
    }

    /// For each column holding a blob hash, a statement writing `bad` into it (the rest of the
    /// row well formed; a referenced note or blob may be missing, which the hash check must
    /// report before any foreign key does), with its arguments. The update needs a blob row
    /// `abab…ab` (``wellFormedHash``) to exist.
    public static func writingMalformed(_ bad: String) -> [(column: String, sql: String, arguments: [SQLValue])] {
        let date = SQLValue.text("2026-01-01 00:00:00.000")
        let good = wellFormedHash
        return [
            ("blob.hash", "INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, 1, 'present', ?)", [.text(bad), date]),
            ("blob.hash (update)", "UPDATE blob SET hash = ? WHERE hash = ?", [.text(bad), .text(good)]),
            ("attachment.blobHash", """
                INSERT INTO attachment (id, noteId, position, blobHash, mediaType, filename, metadata, createdAt, updatedAt, clock)
                VALUES ('a1', 'n1', 0, ?, 'image/jpeg', 'a.jpg', '{}', ?, ?, '')
                """, [.text(bad), date, date]),
            ("attachment.motionHash", """
                INSERT INTO attachment (id, noteId, position, blobHash, mediaType, filename, metadata, createdAt, updatedAt, clock, motionHash, motionMediaType)
                VALUES ('a2', 'n1', 0, ?, 'image/heic', 'a.heic', '{}', ?, ?, '', ?, 'video/quicktime')
                """, [.text(good), date, date, .text(bad)]),
            ("imageEntry.blobHash", "INSERT INTO imageEntry (key, blobHash, mediaType, updatedAt) VALUES ('k', ?, 'image/png', ?)", [.text(bad), date]),
            ("blobContent.hash", "INSERT INTO blobContent (hash, bytes) VALUES (?, ?)", [.text(bad), .blob(Data([1]))]),
            ("blobLease.hash", "INSERT INTO blobLease (hash, holder, purpose, expiresAt) VALUES (?, 'h', 'upload', ?)", [.text(bad), date]),
        ]
    }

    /// A well-formed hash, `abab…ab`.
    public static let wellFormedHash = String(repeating: "ab", count: 32)

    /// Malformed hashes of every kind: a path out of the store, an absolute path, too short,
    /// upper case, a NUL inside, a line break at the end.
    public static let malformedHashes = [
        siblingHash(".bashrc"),
        "..//" + String(repeating: "../", count: 12) + "etc/passwd" + String(repeating: "/", count: 14),
        String(repeating: "a", count: 63),
        String(repeating: "AB", count: 32),
        String(repeating: "a", count: 32) + "\u{0}" + String(repeating: "a", count: 31),
        String(repeating: "a", count: 63) + "\n",
    ]

    private static let now = "'2026-01-01 00:00:00.000'"

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
