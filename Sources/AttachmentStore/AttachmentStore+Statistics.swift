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
        let (layout, disk) = (self.layout, thumbnails.disk)
        let usage = try await BlockingPool.run { () -> [Int64] in
            let thumbnails = disk.usage()
            let catalog = ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
                let path = layout.catalogPath + suffix
                return total + (FileManager.default.fileExists(atPath: path) ? BlobFileScan.diskUsage(of: path) : 0)
            }
            return [BlobFileScan.diskUsage(of: layout.root), BlobFileScan.diskUsage(of: layout.blobsPath), catalog,
                    Int64(thumbnails.files), thumbnails.bytes, BlobFileScan.diskUsage(of: layout.cachePath + "/blobs"),
                    BlobFileScan.diskUsage(of: layout.quarantinePath)]
        }
        stats.bytesOnDisk = usage[0]
        stats.originalsOnDisk = usage[1]
        stats.catalogOnDisk = usage[2]
        stats.thumbnailCacheFiles = Int(usage[3])
        stats.thumbnailCacheOnDisk = usage[4]
        stats.originalCopiesOnDisk = usage[5]
        stats.quarantineOnDisk = usage[6]
        stats.budget = try await storageBudget()
        return stats
    }
}
