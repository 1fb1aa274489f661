import CatalogSQL

extension Catalog {
    /// Where the figures the catalog keeps (``CatalogTally``) disagree with a count of its
    /// records, as sentences: each figure that differs, then blobs whose reference count is
    /// wrong (at most 10). Empty when they agree. Reads the whole catalog, in one read
    /// transaction (one snapshot, so writers alongside cause no false alarm).
    func tallyProblems() async throws -> [String] {
        try await read { db in
            let kept = try db.queryOne(CatalogTally.readQuery)
            let counted = try db.queryOne(CatalogTally.recountQuery)
            var problems: [String] = []
            for figure in CatalogTally.figures {
                let (keeps, counts) = (try kept?.int64(figure.column) ?? 0, try counted?.int64(figure.column) ?? 0)
                if keeps != counts {
                    problems.append("the statistics keep \(keeps) \(figure.column) where the records count \(counts); a repair recounts them")
                }
            }
            for row in try db.query(CatalogTally.miscountedBlobsQuery(limit: 10), []) {
                problems.append("blob \(try row.requiredString("hash")) has a wrong reference count; a repair recounts it")
            }
            return problems
        }
    }

    /// Sets the kept figures and every blob's reference count to what the records say.
    func recountTally() async throws {
        let statements = CatalogTally.rebuildStatements(database.dialect)
        try await write { db in
            for statement in statements { try db.execute(statement) }
        }
    }
}
