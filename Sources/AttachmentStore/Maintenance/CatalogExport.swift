import CatalogSQL
import Foundation

/// Copies a catalog kept in another database (PostgreSQL) into a new SQLite catalog file: every
/// row of the store's tables from one consistent snapshot, with the change feed's sequence
/// numbers kept as they were (peers' cursors point at them). The two catalogs share their
/// tables and columns (the same migrations), so the copy is row for row.
enum CatalogExport {
    /// The tables copied, parents before children. `change` comes last: inserting notes,
    /// attachments and tombstones fills it through triggers, and it is then replaced by the
    /// source's own rows. `blobLease` is left out: leases belong to the running servers.
    static let tables = ["storeSetting", "note", "noteVersion", "blob", "blobContent", "attachment", "imageEntry", "tombstone", "change"]

    /// Writes the catalog in `source` into a new SQLite catalog at `path`; how many rows it copied.
    static func copy(from source: any SQLDatabase, toSQLiteAt path: String, busyTimeout: TimeInterval) async throws -> Int {
        let rows = try await source.read { transaction in
            try tables.map { table in (table, try transaction.query("SELECT * FROM \(table)", [])) }
        }
        let copy = try await BlockingPool.run { try SQLiteCatalogDatabase(path: path, busyTimeout: busyTimeout) }
        let outcome: Result<Void, any Error>
        do {
            try await copy.write { transaction in
                for (table, tableRows) in rows {
                    if table == "change" { _ = try transaction.execute("DELETE FROM change", []) }
                    // What the copy's triggers keep (``CatalogTally``) they count again, from its rows.
                    let derived = CatalogTally.derivedColumns[table] ?? []
                    for row in tableRows {
                        let kept = row.columns.indices.filter { !derived.contains(row.columns[$0].lowercased()) }
                        let columns = kept.map { "\"\(row.columns[$0])\"" }.joined(separator: ", ")
                        let placeholders = Array(repeating: "?", count: kept.count).joined(separator: ", ")
                        let upsert = table == "storeSetting" ? " ON CONFLICT (key) DO UPDATE SET value = excluded.value" : ""
                        _ = try transaction.execute("INSERT INTO \(table) (\(columns)) VALUES (\(placeholders))\(upsert)", kept.map { row.values[$0] })
                    }
                }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try await BlockingPool.run { try copy.close() }
        try outcome.get()
        return rows.reduce(0) { $0 + $1.1.count }
    }
}
