import Foundation
import CatalogSQL

extension AttachmentStore {
    /// Purges what outlived the trash's retention (``purgeExpiredTrash()``), then removes blobs
    /// nothing references, blob files the catalog does not know (left by a crash), and temporary
    /// files of dead ingests — each only once older than `grace` — and resumable uploads past
    /// their own expiry. The originals of what is in the trash are referenced, so they stay.
    ///
    /// Safe while other processes use the store: a temporary file whose writer is alive is
    /// locked and never touched (nor, for its first minute, one still being
    /// created), and blobs are removed inside a catalog write transaction that rechecks they
    /// are unreferenced, so no concurrent ingest can start referencing one.
    /// - Parameters:
    ///   - grace: how old garbage must be before it goes (default one hour; `.zero` for now).
    ///   - dryRun: report what would go, remove nothing.
    /// - Throws: ``Error/damagedCatalogRow(_:)`` before removing anything when the blob hash of a
    ///   row it would remove is malformed (`verify` lists every such row).
    public func collectGarbage(olderThan grace: Duration = .seconds(3600), dryRun: Bool = false) async throws -> GarbageReport {
        let cutoff = Date().addingTimeInterval(-TimeInterval(grace.components.seconds) - TimeInterval(grace.components.attoseconds) / 1e18)
        var report = GarbageReport(dryRun: dryRun)
        // A row gc would turn into a path whose hash is not a hash (a tampered catalog) stops it
        // before it removes anything. Only those rows are read: gc costs its garbage, not the
        // catalog (`verify` checks every row).
        try await refuseMalformedGarbage()
        try await purgeTrash(into: &report)
        try await collectTemporaryFiles(before: cutoff, into: &report)
        try await collectExpiredUploads(into: &report)
        let removedRows = try await collectUnreferencedBlobs(before: cutoff, into: &report)
        let orphans = try await backend.collectOrphans(before: cutoff, grace: grace, removedRows: removedRows, dryRun: dryRun)
        report.orphanFiles = orphans.count
        report.orphanBytes = orphans.bytes
        report.keptInGracePeriod += orphans.kept
        return report
    }

    /// Throws for the first unreferenced blob row whose hash is malformed.
    /// - Throws: ``Error/damagedCatalogRow(_:)``.
    private func refuseMalformedGarbage() async throws {
        for record in try await catalog.read({ db in try BlobRecord.unreferenced(in: db) }) { _ = try record.validatedHash }
    }

    /// Purges (in a dry run, counts) what has been in the trash longer than its retention.
    private func purgeTrash(into report: inout GarbageReport) async throws {
        let cutoff = Date().addingTimeInterval(-configuration.trashRetentionInterval)
        if report.dryRun {
            let due = try await catalog.read { db in try TrashRecord.due(before: cutoff, in: db) }
            (report.trashedNotesPurged, report.trashedAttachmentsPurged) = (due.notes.count, due.attachments.count)
        } else {
            let purged = try await emptyTrash(trashedBefore: cutoff)
            (report.trashedNotesPurged, report.trashedAttachmentsPurged) = (purged.notes, purged.attachments)
        }
    }

    /// How old a temporary file still being created (named with
    /// ``POSIXFile/unlockedCreationSuffix``: made, not yet locked) must be before `gc` removes
    /// it, whatever the grace period. One minute. Every other temporary file is locked by its
    /// writer from the moment it has its name, so an unlocked one is dead at once.
    static let creatingTemporaryFileGrace: TimeInterval = 60

    /// Removes the dead files of `tmp/` (``DeadTemporaryFile``: no writer holds them) last
    /// changed before `cutoff`, counting them into `report`.
    func collectTemporaryFiles(before cutoff: Date, into report: inout GarbageReport) async throws {
        let directory = layout.temporaryPath
        let dryRun = report.dryRun
        let creatingCutoff = min(cutoff, Date().addingTimeInterval(-Self.creatingTemporaryFileGrace))
        let (count, bytes, kept) = try await BlockingPool.run { () -> (Int, Int64, Int) in
            var (count, bytes, kept) = (0, Int64(0), 0)
            for name in POSIXFile.names(in: directory) {
                // A live writer holds a lock on its file: leave it alone.
                guard let file = DeadTemporaryFile(directory + "/" + name) else { continue }
                let creating = name.hasSuffix(POSIXFile.unlockedCreationSuffix)
                guard file.modified < (creating ? creatingCutoff : cutoff) else { kept += 1; continue }
                let size = file.bytes
                if !dryRun { try file.remove() }
                count += 1
                bytes += size
            }
            return (count, bytes, kept)
        }
        report.temporaryFiles = count
        report.temporaryBytes = bytes
        report.keptInGracePeriod += kept
    }

    /// Removes unreferenced blob rows and their local files; returns the hashes removed (or that
    /// would be, in a dry run). What the backend keeps elsewhere goes in its `collectOrphans`.
    private func collectUnreferencedBlobs(before cutoff: Date, into report: inout GarbageReport) async throws -> Set<BlobHash> {
        let backend = self.backend
        let dryRun = report.dryRun
        let quarantine = layout.quarantinePath
        let (removed, bytes, kept) = try await catalog.write { db -> (Set<BlobHash>, Int64, Int) in
            var (removed, bytes, kept) = (Set<BlobHash>(), Int64(0), 0)
            // Every hash is checked before anything is removed: a malformed one refuses the whole run.
            let unreferenced = try BlobRecord.unreferenced(in: db).map { record throws(Error) in (record, try record.validatedHash) }
            for (record, hash) in unreferenced {
                let facts = backend.garbageFacts(of: record, hash: hash)
                if facts.age >= cutoff && !facts.collectNow { kept += 1; continue }
                if !dryRun {
                    try backend.remove(hash)
                    // A quarantined copy of wrong bytes no one references any more goes with its row.
                    if record.state == .damaged { try POSIXFile.remove(quarantine + "/" + hash.rawValue) }
                    try BlobRecord.delete(record.hash, in: db)
                }
                removed.insert(hash)
                bytes += facts.bytes
            }
            return (removed, bytes, kept)
        }
        report.blobs = removed.count
        report.blobBytes = bytes
        report.keptInGracePeriod += kept
        return removed
    }
}
