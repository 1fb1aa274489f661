import CatalogSQL

/// A row of the `change` table: the feed's place of one note's or attachment's latest change
/// (triggers write it; peers read the feed in `seq` order).
struct ChangeFeedEntry: Sendable, Equatable {
    /// The feed position.
    var sequence: Int64
    /// `note` or `attachment`.
    var entity: String
    /// The changed record's id.
    var id: String

    /// The entries after `sequence`, in feed order, at most `limit` of them.
    static func after(_ sequence: Int64, limit: Int, in db: any SQLTransaction) throws -> [ChangeFeedEntry] {
        try db.query("SELECT seq, entity, id FROM change WHERE seq > ? ORDER BY seq LIMIT ?", [.integer(sequence), .integer(Int64(limit))])
            .map { ChangeFeedEntry(sequence: try $0.requiredInt64("seq"), entity: try $0.requiredString("entity"), id: try $0.requiredString("id")) }
    }
}
