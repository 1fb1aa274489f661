import Foundation
import CatalogSQL
#if canImport(Glibc)
import Glibc
#endif

extension AttachmentStore {
    /// Removes blobs nothing references, blob files the catalog does not know (left by a crash),
    /// and temporary files of dead ingests — each only once older than `grace` — and resumable
    /// uploads past their own expiry.
    ///
    /// Safe while other processes use the store: a temporary file whose writer is alive is
    /// locked and never touched (nor, for its first minute, one still being
    /// created), and blobs are removed inside a catalog write transaction that rechecks they
    /// are unreferenced, so no concurrent ingest can start referencing one.
    /// - Parameters:
    ///   - grace: how old garbage must be before it goes (default one hour; `.zero` for now).
    ///   - dryRun: report what would go, remove nothing.
    public func collectGarbage(olderThan grace: Duration = .seconds(3600), dryRun: Bool = false) async throws -> GarbageReport {
        let cutoff = Date().addingTimeInterval(-TimeInterval(grace.components.seconds) - TimeInterval(grace.components.attoseconds) / 1e18)
        var report = GarbageReport(dryRun: dryRun)
        try await collectTemporaryFiles(before: cutoff, into: &report)
        try await collectExpiredUploads(into: &report)
        let removedRows = try await collectUnreferencedBlobs(before: cutoff, into: &report)
        let orphans = try await backend.collectOrphans(before: cutoff, grace: grace, removedRows: removedRows, dryRun: dryRun)
        report.orphanFiles = orphans.count
        report.orphanBytes = orphans.bytes
        report.keptInGracePeriod += orphans.kept
        return report
    }

    /// How old a temporary file still being created (named with
    /// ``POSIXFile/unlockedCreationSuffix``: made, not yet locked) must be before `gc` removes
    /// it, whatever the grace period. One minute. Every other temporary file is locked by its
    /// writer from the moment it has its name, so an unlocked one is dead at once.
    static let creatingTemporaryFileGrace: TimeInterval = 60

    private func collectTemporaryFiles(before cutoff: Date, into report: inout GarbageReport) async throws {
        let directory = layout.temporaryPath
        let dryRun = report.dryRun
        let creatingCutoff = min(cutoff, Date().addingTimeInterval(-Self.creatingTemporaryFileGrace))
        let (count, bytes, kept) = try await BlockingPool.run { () -> (Int, Int64, Int) in
            var (count, bytes, kept) = (0, Int64(0), 0)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                let path = directory + "/" + name
                let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                guard fd >= 0 else { continue }
                defer { close(fd) }
                // A live ingest holds an exclusive lock on its file: leave it alone. And a file
                // no longer at `path` once locked (removed, or replaced by a new one, since the
                // open) is not the one to remove.
                guard flock(fd, LOCK_EX | LOCK_NB) == 0, POSIXFile.isStillNamed(fd, path) else { continue }
                var info = stat()
                guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                let modified = BlobFileScan.modificationDate(info)
                let creating = name.hasSuffix(POSIXFile.unlockedCreationSuffix)
                guard modified < (creating ? creatingCutoff : cutoff) else { kept += 1; continue }
                if !dryRun { try POSIXFile.remove(path) }
                count += 1
                bytes += Int64(info.st_size)
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
            for record in try BlobRecord.unreferenced(in: db) {
                let hash = BlobHash(trusted: record.hash)
                let facts = backend.garbageFacts(of: record)
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
