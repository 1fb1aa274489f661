import CatalogSQL

extension StoreStatistics {
    /// The counts and byte sums the catalog holds (notes, attachments, blobs by state, scrub
    /// counters, bytes referenced, stored and saved by deduplication); the figures measured on
    /// disk and the budget are left at zero for the caller.
    init(catalog db: any SQLTransaction) throws {
        self.init()
        func number(_ sql: String) throws -> Int64 { try db.queryOne(sql)?.int64("n") ?? 0 }
        notes = Int(try number("SELECT COUNT(*) AS n FROM note"))
        attachments = try AttachmentRecord.count(in: db)
        imageKeys = Int(try number("SELECT COUNT(*) AS n FROM imageEntry"))
        blobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'present'"))
        remoteBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'remote'"))
        evictedBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'evicted'"))
        damagedBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'damaged'"))
        scrubDamageFound = try StoreSetting.count(ScrubCounter.found, in: db)
        scrubRepaired = try StoreSetting.count(ScrubCounter.repaired, in: db)
        blobBytes = try number("SELECT CAST(COALESCE(SUM(byteCount), 0) AS BIGINT) AS n FROM blob WHERE state = 'present'")
        referencedBytes = try number("""
            SELECT CAST(COALESCE(SUM(blob.byteCount), 0) AS BIGINT) AS n FROM (
                \(AttachmentRecord.blobHashesQuery) UNION ALL SELECT blobHash FROM imageEntry
            ) AS reference JOIN blob ON blob.hash = reference.blobHash
            """)
        let distinctReferenced = try number("""
            SELECT CAST(COALESCE(SUM(byteCount), 0) AS BIGINT) AS n FROM blob WHERE hash IN (
                \(AttachmentRecord.blobHashesQuery) UNION SELECT blobHash FROM imageEntry)
            """)
        bytesSavedByDeduplication = referencedBytes - distinctReferenced
    }
}
