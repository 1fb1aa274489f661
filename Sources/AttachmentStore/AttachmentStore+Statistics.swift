import GRDB

extension AttachmentStore {
    /// Counts notes, attachments and blobs, and measures bytes referenced, stored and on disk.
    public func statistics() async throws -> StoreStatistics {
        var stats = try await catalog.read { db in
            var stats = StoreStatistics()
            stats.notes = try NoteRecord.fetchCount(db)
            stats.attachments = try AttachmentRecord.fetchCount(db)
            stats.imageKeys = try ImageEntryRecord.fetchCount(db)
            stats.blobs = try BlobRecord.filter(BlobRecord.Columns.state == "present").fetchCount(db)
            stats.remoteBlobs = try BlobRecord.filter(BlobRecord.Columns.state == "remote").fetchCount(db)
            stats.blobBytes = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(byteCount), 0) FROM blob WHERE state = 'present'") ?? 0
            stats.referencedBytes = try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(blob.byteCount), 0) FROM (
                    SELECT blobHash FROM attachment UNION ALL SELECT blobHash FROM imageEntry
                ) AS reference JOIN blob ON blob.hash = reference.blobHash
                """) ?? 0
            let distinctReferenced = try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(byteCount), 0) FROM blob WHERE hash IN (
                    SELECT blobHash FROM attachment UNION SELECT blobHash FROM imageEntry)
                """) ?? 0
            stats.bytesSavedByDeduplication = stats.referencedBytes - distinctReferenced
            return stats
        }
        let root = layout.root
        stats.bytesOnDisk = try await BlockingPool.run { BlobFileScan.diskUsage(of: root) }
        return stats
    }
}
