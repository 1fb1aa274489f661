import CatalogSQL

extension Catalog {
    /// The rows whose blob hash is not 64 lowercase hexadecimal digits, in any column that holds
    /// one (``BlobHashColumns``), at most `limit`. Migration `v10` makes the catalog refuse them;
    /// one is here only if a catalog or backup was written around that check.
    func malformedBlobHashes(limit: Int = 100) async throws -> [BlobHashColumns.Malformed] {
        let dialect = database.dialect
        return try await read { db in try BlobHashColumns.malformed(in: db, dialect, limit: limit) }
    }

    /// Throws for the first row ``malformedBlobHashes(limit:)`` finds: what an operation that
    /// turns many hashes into paths (`gc`, a backup, a restore) runs before it changes anything.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)``.
    func refuseMalformedBlobHashes() async throws {
        if let first = try await malformedBlobHashes(limit: 1).first { throw AttachmentStore.Error.damagedCatalogRow(first) }
    }
}
