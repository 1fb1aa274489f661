import CatalogSQL
import Foundation

/// A row of the `blob` table: one content-addressed blob, here or on a peer.
struct BlobRecord: Sendable {
    /// Where the bytes are, as far as this store knows.
    enum State: String, Codable, Sendable {
        /// Here, readable.
        case present
        /// Known only as a record that arrived by sync; the bytes are on a peer.
        case remote
        /// Were here, dropped under the storage budget because a peer holds them.
        case evicted
        /// Failed a re-hash: the file was moved to `quarantine/` and is never served.
        case damaged
    }

    var hash: String
    var byteCount: Int64
    var state: State
    var createdAt: Date
    /// When a scrub last re-hashed the bytes and found them intact; `nil` when none has yet.
    var checkedAt: Date?

    init(hash: String, byteCount: Int64, state: State, createdAt: Date, checkedAt: Date? = nil) {
        self.hash = hash
        self.byteCount = byteCount
        self.state = state
        self.createdAt = createdAt
        self.checkedAt = checkedAt
    }

    /// ``hash`` as a ``BlobHash``, the only way it becomes a path.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` for a malformed one.
    var validatedHash: BlobHash {
        get throws(AttachmentStore.Error) { try BlobHash(catalog: hash, table: "blob", column: "hash", row: hash) }
    }

    init(row: SQLRow) throws {
        hash = try row.requiredString("hash")
        byteCount = try row.requiredInt64("byteCount")
        state = State(rawValue: try row.requiredString("state")) ?? .remote
        createdAt = try row.requiredDate("createdAt")
        checkedAt = try row.date("checkedAt")
    }

    /// The columns a row is written with, and each one's value.
    static let columns = SQLColumns<BlobRecord>(table: "blob", key: ["hash"], [
        .init("hash") { .text($0.hash) },
        .init("byteCount") { .integer($0.byteCount) },
        .init("state") { .text($0.state.rawValue) },
        .init("createdAt") { .date($0.createdAt) },
        .init("checkedAt") { $0.checkedAt.map(SQLValue.date) ?? .null },
    ])

    /// Inserts the row.
    func insert(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.insert, Self.columns.arguments(of: self))
    }

    /// The row of `hash`, if any.
    static func fetch(_ hash: String, in db: any SQLTransaction) throws -> BlobRecord? {
        try db.queryOne("SELECT * FROM blob WHERE hash = ?", [.text(hash)]).map(BlobRecord.init(row:))
    }

    /// The states of the blobs `hashes` that have a row, by hash.
    static func states(of hashes: [String], in db: any SQLTransaction) throws -> [String: State] {
        var states: [String: State] = [:]
        for chunk in SQLPlaceholders.chunks(hashes) {
            for row in try db.query("SELECT hash, state FROM blob WHERE hash IN (\(SQLPlaceholders.list(chunk.count)))", chunk.map(SQLValue.text)) {
                states[try row.requiredString("hash")] = State(rawValue: try row.requiredString("state")) ?? .remote
            }
        }
        return states
    }

    /// Rows in `state`.
    static func all(in state: State, in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("SELECT * FROM blob WHERE state = ?", [.text(state.rawValue)]).map(BlobRecord.init(row:))
    }

    /// Which of `hashes` the catalog has a row for: what the files or objects found on a walk are
    /// checked against, in lookups by key, so the cost is the walk's, not the catalog's.
    static func known(among hashes: [String], in db: any SQLTransaction) throws -> Set<String> {
        Set(try states(of: hashes, in: db).keys)
    }

    /// Deletes the row of `hash`.
    static func delete(_ hash: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM blob WHERE hash = ?", [.text(hash)])
    }

    /// Records that the bytes of `hash` are present, creating the row or upgrading a remote one.
    static func markPresent(_ hash: BlobHash, byteCount: Int64, in db: any SQLTransaction) throws {
        let row = BlobRecord(hash: hash.rawValue, byteCount: byteCount, state: .present, createdAt: Date())
        try db.execute(columns.insert + " ON CONFLICT (hash) DO UPDATE SET state = excluded.state", columns.arguments(of: row))
    }

    /// Blob rows that no attachment and no image entry references: those whose kept reference
    /// count is 0 (``CatalogTally``; the partial index `blob_unreferenced`), each confirmed by its
    /// records, so a count a restored or tampered catalog got wrong keeps garbage, never loses an
    /// original. Costs the garbage, not the catalog.
    static func unreferenced(in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("SELECT * FROM blob WHERE referenceCount = 0 AND \(unreferencedCondition)", []).map(BlobRecord.init(row:))
    }

    /// The same rows found by asking every blob's records, for a catalog whose reference counts
    /// may be missing or untrue (a backup of any version, being read). Reads the whole catalog.
    static func unreferencedCountingReferences(in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("SELECT * FROM blob WHERE \(unreferencedCondition)", []).map(BlobRecord.init(row:))
    }

    /// True of a blob row no attachment and no image entry names.
    private static let unreferencedCondition = """
        NOT \(AttachmentRecord.references("blob.hash"))
          AND NOT EXISTS (SELECT 1 FROM imageEntry WHERE imageEntry.blobHash = blob.hash)
        """

    /// Whether the catalog records the bytes of `hash` as present.
    static func isPresent(_ hash: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM blob WHERE hash = ? AND state = 'present') AS found", [.text(hash)])?.bool("found") ?? false
    }

    /// Records that `hash` was re-hashed and found intact at `date`.
    static func markChecked(_ hash: String, at date: Date, in db: any SQLTransaction) throws {
        try db.execute("UPDATE blob SET checkedAt = ? WHERE hash = ?", [.date(date), .text(hash)])
    }

    /// Moves `hash` from `from` to `to`; whether a row in `from` was there to move.
    static func transition(_ hash: String, from: State, to: State, in db: any SQLTransaction) throws -> Bool {
        try db.execute("UPDATE blob SET state = ? WHERE hash = ? AND state = ?",
                       [.text(to.rawValue), .text(hash), .text(from.rawValue)]) > 0
    }

    /// Present blobs in the order a scrub visits them: never checked first, then the longest ago.
    static func scrubOrder(limit: Int, in db: any SQLTransaction) throws -> [BlobRecord] {
        try db.query("""
            SELECT * FROM blob WHERE state = 'present'
            ORDER BY CASE WHEN checkedAt IS NULL THEN 0 ELSE 1 END, checkedAt, hash LIMIT ?
            """, [.integer(Int64(limit))]).map(BlobRecord.init(row:))
    }

    /// Whether anything references `hash`.
    static func isReferenced(_ hash: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("""
            SELECT (\(AttachmentRecord.references("?")) OR EXISTS (SELECT 1 FROM imageEntry WHERE blobHash = ?)) AS found
            """, [.text(hash), .text(hash), .text(hash)])?.bool("found") ?? false
    }
}
