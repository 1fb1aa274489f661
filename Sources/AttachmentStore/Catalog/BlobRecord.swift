import CatalogSQL
import Foundation

/// A row of the `blob` table: one content-addressed blob, here or on a peer.
struct BlobRecord: Sendable {
    /// Whether the bytes are on this machine.
    enum State: String, Codable, Sendable {
        case present, remote
    }

    var hash: String
    var byteCount: Int64
    var state: State
    var createdAt: Date

    init(hash: String, byteCount: Int64, state: State, createdAt: Date) {
        self.hash = hash
        self.byteCount = byteCount
        self.state = state
        self.createdAt = createdAt
    }

    init(row: SQLRow) throws {
        hash = try row.requiredString("hash")
        byteCount = try row.requiredInt64("byteCount")
        state = State(rawValue: try row.requiredString("state")) ?? .remote
        createdAt = try row.requiredDate("createdAt")
    }

    /// Inserts the row.
    func insert(_ db: any SQLTransaction) throws {
        try db.execute("INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, ?, ?, ?)",
                       [.text(hash), .integer(byteCount), .text(state.rawValue), .date(createdAt)])
    }

    /// The row of `hash`, if any.
    static func fetch(_ hash: String, in db: any SQLTransaction) throws -> BlobRecord? {
        try db.queryOne("SELECT * FROM blob WHERE hash = ?", [.text(hash)]).map(BlobRecord.init(row:))
    }

    /// Rows in `state`.
    static func all(in state: State, in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("SELECT * FROM blob WHERE state = ?", [.text(state.rawValue)]).map(BlobRecord.init(row:))
    }

    /// Every blob hash the catalog knows.
    static func allHashes(in db: any SQLTransaction) throws -> Set<String> {
        Set(try db.query("SELECT hash FROM blob", []).map { try $0.requiredString("hash") })
    }

    /// Deletes the row of `hash`.
    static func delete(_ hash: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM blob WHERE hash = ?", [.text(hash)])
    }

    /// Records that the bytes of `hash` are present, creating the row or upgrading a remote one.
    static func markPresent(_ hash: BlobHash, byteCount: Int64, in db: any SQLTransaction) throws {
        try db.execute("""
            INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, ?, 'present', ?)
            ON CONFLICT (hash) DO UPDATE SET state = 'present'
            """, [.text(hash.rawValue), .integer(byteCount), .date(Date())])
    }

    /// Blob rows that no attachment and no image entry references.
    static func unreferenced(in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("""
            SELECT * FROM blob
            WHERE NOT EXISTS (SELECT 1 FROM attachment WHERE attachment.blobHash = blob.hash)
              AND NOT EXISTS (SELECT 1 FROM imageEntry WHERE imageEntry.blobHash = blob.hash)
            """, []).map(BlobRecord.init(row:))
    }

    /// Whether the catalog records the bytes of `hash` as present.
    static func isPresent(_ hash: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM blob WHERE hash = ? AND state = 'present') AS found", [.text(hash)])?.bool("found") ?? false
    }

    /// Whether anything references `hash`.
    static func isReferenced(_ hash: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("""
            SELECT (EXISTS (SELECT 1 FROM attachment WHERE blobHash = ?) OR EXISTS (SELECT 1 FROM imageEntry WHERE blobHash = ?)) AS found
            """, [.text(hash), .text(hash)])?.bool("found") ?? false
    }
}
