import CatalogSQL

/// A row of the `tombstone` table: a deleted note or attachment, kept so peers learn of it.
struct TombstoneRecord: Sendable {
    var entity: String
    var id: String
    var clock: String

    /// Whether a record of `entity` with `id` was deleted here.
    static func exists(entity: String, id: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT EXISTS (SELECT 1 FROM tombstone WHERE entity = ? AND id = ?) AS found",
                        [.text(entity), .text(id)])?.bool("found") ?? false
    }

    /// The clocks of the tombstones of `entity` among `ids`, by id.
    static func clocks(entity: String, ids: [String], in db: any SQLTransaction) throws -> [String: String] {
        var clocks: [String: String] = [:]
        for chunk in SQLPlaceholders.chunks(ids) {
            for row in try db.query("SELECT id, clock FROM tombstone WHERE entity = ? AND id IN (\(SQLPlaceholders.list(chunk.count)))",
                                    [.text(entity)] + chunk.map(SQLValue.text)) {
                clocks[try row.requiredString("id")] = try row.requiredString("clock")
            }
        }
        return clocks
    }

    /// The columns a row is written with, and each one's value.
    static let columns = SQLColumns<TombstoneRecord>(table: "tombstone", key: ["entity", "id"], [
        .init("entity") { .text($0.entity) },
        .init("id") { .text($0.id) },
        .init("clock") { .text($0.clock) },
    ])

    /// Records the deletion, replacing an older tombstone of the same record.
    func save(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.upsert, Self.columns.arguments(of: self))
    }
}
