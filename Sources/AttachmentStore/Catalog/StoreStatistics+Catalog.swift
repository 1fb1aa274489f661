import CatalogSQL

extension StoreStatistics {
    /// The counts and byte sums the catalog holds (notes, attachments, blobs by state, scrub
    /// counters, bytes referenced, stored and saved by deduplication), read from the figures it
    /// keeps as it changes (``CatalogTally``: a few rows, whatever the store's size); the figures
    /// measured on disk and the budget are left at zero for the caller.
    init(catalog db: any SQLTransaction) throws {
        try self.init(figures: CatalogTally.readQuery, in: db)
    }

    /// The same figures counted from the records themselves, reading the whole catalog: what
    /// `verify` compares the kept ones with.
    init(recountingCatalog db: any SQLTransaction) throws {
        try self.init(figures: CatalogTally.recountQuery, in: db)
    }

    /// The figures of the one row `query` answers, with ``CatalogTally/figures``' columns, and
    /// the scrub's counters.
    private init(figures query: String, in db: any SQLTransaction) throws {
        self.init()
        let row = try db.queryOne(query)
        scrubDamageFound = try StoreSetting.count(ScrubCounter.found, in: db)
        scrubRepaired = try StoreSetting.count(ScrubCounter.repaired, in: db)
        func figure(_ column: String) throws -> Int64 { try row?.int64(column) ?? 0 }
        notes = Int(try figure("notes"))
        attachments = Int(try figure("attachments"))
        imageKeys = Int(try figure("imageKeys"))
        blobs = Int(try figure("presentBlobs"))
        blobBytes = try figure("presentBytes")
        remoteBlobs = Int(try figure("remoteBlobs"))
        evictedBlobs = Int(try figure("evictedBlobs"))
        damagedBlobs = Int(try figure("damagedBlobs"))
        referencedBytes = try figure("referencedBytes")
        bytesSavedByDeduplication = referencedBytes - (try figure("distinctReferencedBytes"))
    }
}
