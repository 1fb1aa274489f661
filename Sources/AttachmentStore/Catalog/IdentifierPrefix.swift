import CatalogSQL

/// The rows whose id starts with what a person typed: how a short id (`293ff945`) becomes the
/// whole one.
enum IdentifierPrefix {
    /// The tables whose ids people type.
    enum Table: String {
        case note
        case attachment
    }

    /// The ids of `table` that start with `prefix`, in order, at most `limit` of them: a range
    /// read off the primary key, without a pattern.
    static func ids(in table: Table, startingWith prefix: String, limit: Int, in db: any SQLTransaction) throws -> [String] {
        try db.query("SELECT id FROM \(table.rawValue) WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                     [.text(prefix), .text(prefix + "\u{10FFFF}"), .integer(Int64(limit))]).map { try $0.requiredString("id") }
    }
}
