import Foundation
import GRDB

/// A row of the `blob` table: one content-addressed file, here or on a peer.
struct BlobRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "blob"

    /// Whether the bytes are on this machine.
    enum State: String, Codable, Sendable, DatabaseValueConvertible {
        case present, remote
    }

    /// Column names, for queries.
    enum Columns {
        static let hash = Column("hash")
        static let byteCount = Column("byteCount")
        static let state = Column("state")
        static let createdAt = Column("createdAt")
    }

    var hash: String
    var byteCount: Int64
    var state: State
    var createdAt: Date

    /// Records that the bytes of `hash` are present, creating the row or upgrading a remote one.
    static func markPresent(_ hash: BlobHash, byteCount: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, ?, 'present', ?)
                ON CONFLICT(hash) DO UPDATE SET state = 'present'
                """,
            arguments: [hash.rawValue, byteCount, Date()]
        )
    }

    /// Blob rows that no attachment and no image entry references.
    static func unreferenced(in db: Database) throws -> [BlobRecord] {
        try BlobRecord.fetchAll(db, sql: """
            SELECT * FROM blob
            WHERE NOT EXISTS (SELECT 1 FROM attachment WHERE attachment.blobHash = blob.hash)
              AND NOT EXISTS (SELECT 1 FROM imageEntry WHERE imageEntry.blobHash = blob.hash)
            """)
    }

    /// Whether the catalog records the bytes of `hash` as present.
    static func isPresent(_ hash: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM blob WHERE hash = ? AND state = 'present')", arguments: [hash]) ?? false
    }

    /// Whether anything references `hash`.
    static func isReferenced(_ hash: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM attachment WHERE blobHash = ?)
                OR EXISTS (SELECT 1 FROM imageEntry WHERE blobHash = ?)
            """, arguments: [hash, hash]) ?? false
    }
}
