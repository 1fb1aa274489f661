import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Counts notes, attachments and blobs, and measures bytes referenced, stored and on disk:
    /// the originals, the catalog and the derived caches each on their own.
    public func statistics() async throws -> StoreStatistics {
        var stats = try await catalog.read { db in
            var stats = StoreStatistics()
            func number(_ sql: String) throws -> Int64 { try db.queryOne(sql)?.int64("n") ?? 0 }
            stats.notes = Int(try number("SELECT COUNT(*) AS n FROM note"))
            stats.attachments = Int(try number("SELECT COUNT(*) AS n FROM attachment"))
            stats.imageKeys = Int(try number("SELECT COUNT(*) AS n FROM imageEntry"))
            stats.blobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'present'"))
            stats.remoteBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'remote'"))
            stats.evictedBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'evicted'"))
            stats.damagedBlobs = Int(try number("SELECT COUNT(*) AS n FROM blob WHERE state = 'damaged'"))
            stats.scrubDamageFound = try StoreSetting.count(ScrubCounter.found, in: db)
            stats.scrubRepaired = try StoreSetting.count(ScrubCounter.repaired, in: db)
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
        let layout = self.layout
        let usage = try await BlockingPool.run { StoreDiskUsage(of: layout) }
        stats.bytesOnDisk = usage.total
        stats.originalsOnDisk = usage.originals
        stats.catalogOnDisk = usage.catalog
        stats.thumbnailCacheFiles = usage.thumbnailFiles
        stats.thumbnailCacheOnDisk = usage.thumbnailBytes
        stats.originalCopiesOnDisk = usage.originalCopies
        stats.quarantineOnDisk = usage.quarantine
        stats.budget = try await storageBudget()
        return stats
    }
}
