extension AttachmentStore {
    /// Counts notes, attachments and blobs, and measures bytes referenced, stored and on disk:
    /// the originals, the catalog and the derived caches each on their own.
    public func statistics() async throws -> StoreStatistics {
        var stats = try await catalog.read { db in try StoreStatistics(catalog: db) }
        let layout = self.layout
        let usage = try await BlockingPool.run { StoreDiskUsage(of: layout) }
        stats.bytesOnDisk = usage.total
        stats.originalsOnDisk = usage.originals
        stats.catalogOnDisk = usage.catalog
        stats.thumbnailCacheFiles = usage.thumbnailFiles
        stats.thumbnailCacheOnDisk = usage.thumbnailBytes
        stats.playableVideoFiles = usage.playableVideoFiles
        stats.playableVideosOnDisk = usage.playableVideoBytes
        stats.originalCopiesOnDisk = usage.originalCopies
        stats.quarantineOnDisk = usage.quarantine
        stats.budget = try await storageBudget()
        return stats
    }
}
