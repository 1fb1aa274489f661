import GRDB

/// A row of the `tombstone` table: a deleted note or attachment, kept so peers learn of it.
struct TombstoneRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "tombstone"

    var entity: String
    var id: String
    var clock: String

    /// Whether a record of `entity` with `id` was deleted here.
    static func exists(entity: String, id: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tombstone WHERE entity = ? AND id = ?)", arguments: [entity, id]) ?? false
    }
}
