import CatalogSQL

extension AttachmentStore {
    /// Counts notes, attachments and blobs, and measures bytes referenced, stored and on disk.
    public func statistics() async throws -> StoreStatistics {
        var stats = try await catalog.read { db in
            var stats = StoreStatistics()
            func number(_ sql: String) throws -> Int64 { try db.queryOne(sql)?.int64("n") ?? 0 }
            stats.notes = Int(try number("SELECT COUNT(*) AS n FROM note"))
            stats.attachments = Int(try number("SELECT COUNT(*) AS n FROM attachment"))
            stats.imageKeys = Int(try number("SELECT COUNT(*) AS n FROM imageEntry"))
            stats.blobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'present'"))
            stats.remoteBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'remote'"))
            stats.blobBytes = try number("SELECT CAST(COALESCE(SUM(byteCount), 0) AS BIGINT) AS n FROM blob WHERE state = 'present'")
            stats.referencedBytes = try number("""
                SELECT CAST(COALESCE(SUM(blob.byteCount), 0) AS BIGINT) AS n FROM (
                    SELECT blobHash FROM attachment UNION ALL SELECT blobHash FROM imageEntry
                ) AS reference JOIN blob ON blob.hash = reference.blobHash
                """)
            let distinctReferenced = try number("""
                SELECT CAST(COALESCE(SUM(byteCount), 0) AS BIGINT) AS n FROM blob WHERE hash IN (
                    SELECT blobHash FROM attachment UNION SELECT blobHash FROM imageEntry)
                """)
            stats.bytesSavedByDeduplication = stats.referencedBytes - distinctReferenced
            return stats
        }
        let root = layout.root
        stats.bytesOnDisk = try await BlockingPool.run { BlobFileScan.diskUsage(of: root) }
        return stats
    }
}
