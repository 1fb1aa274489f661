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
    /// locked and never touched (nor, for ``creatingTemporaryFileGrace``, one still being
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
        if blobs.placement == .objectStore {
            // Object stores date objects by their own clock (Swift's S3 API rounds up to the
            // next second): with no grace every unclaimed orphan goes, whatever its date.
            let objectCutoff = grace <= .zero ? Date.distantFuture : cutoff
            try await collectOrphanObjects(before: objectCutoff, removedRows: removedRows, into: &report)
        } else {
            try await collectOrphanFiles(before: cutoff, into: &report)
        }
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

    /// Removes unreferenced blob rows (and, for files, their files); returns the hashes removed
    /// (or that would be, in a dry run).
    private func collectUnreferencedBlobs(before cutoff: Date, into report: inout GarbageReport) async throws -> Set<BlobHash> {
        let blobs = self.blobs
        let dryRun = report.dryRun
        let quarantine = layout.quarantinePath
        let (removed, bytes, kept) = try await catalog.write { db -> (Set<BlobHash>, Int64, Int) in
            var (removed, bytes, kept) = (Set<BlobHash>(), Int64(0), 0)
            for record in try BlobRecord.unreferenced(in: db) {
                let hash = BlobHash(trusted: record.hash)
                let info = blobs.placement == .files ? try? POSIXFile.status(blobs.path(for: hash)) : nil
                let age = info.map(BlobFileScan.modificationDate) ?? record.createdAt
                if age >= cutoff && (info != nil || blobs.placement != .files) { kept += 1; continue }
                if !dryRun {
                    try blobs.remove(hash)
                    // A quarantined copy of wrong bytes no one references any more goes with its row.
                    if record.state == .damaged { try POSIXFile.remove(quarantine + "/" + hash.rawValue) }
                    try BlobRecord.delete(record.hash, in: db)
                }
                removed.insert(hash)
                bytes += info.map { Int64($0.st_size) } ?? (blobs.placement != .files && record.state == .present ? record.byteCount : 0)
            }
            return (removed, bytes, kept)
        }
        report.blobs = removed.count
        report.blobBytes = bytes
        report.keptInGracePeriod += kept
        return removed
    }

    /// Deletes objects no catalog row names (left by a failed or crashed ingest, or whose rows
    /// were just removed), each under a deletion claim so no ingest can be uploading it meanwhile.
    private func collectOrphanObjects(before cutoff: Date, removedRows: Set<BlobHash>, into report: inout GarbageReport) async throws {
        guard let objectStore = blobs.objectStore else { return }
        let dryRun = report.dryRun
        if !dryRun { _ = try await catalog.write { db in try BlobLease.removeExpired(in: db) } }
        var objects: [BlobObject] = []
        do {
            for try await object in objectStore.objects() { objects.append(object) }
        } catch {
            throw Self.objectStoreError(error, operation: "list the blobs", location: objectStore.location)
        }
        let known = try await catalog.read { db in try BlobRecord.allHashes(in: db) }
        var (count, bytes, kept) = (0, Int64(0), 0)
        for object in objects where !known.contains(object.hash.rawValue) {
            let rowJustRemoved = removedRows.contains(object.hash)
            guard rowJustRemoved || (object.lastModified ?? .distantFuture) < cutoff else { kept += 1; continue }
            if !dryRun, try await !deleteUnclaimedObject(object.hash) {
                kept += 1
                continue
            }
            guard !rowJustRemoved else { continue }
            count += 1
            bytes += object.byteCount
        }
        report.orphanFiles = count
        report.orphanBytes = bytes
        report.keptInGracePeriod += kept
    }

    private func collectOrphanFiles(before cutoff: Date, into report: inout GarbageReport) async throws {
        let blobs = self.blobs
        let dryRun = report.dryRun
        let files = try await BlockingPool.run { BlobFileScan.files(in: blobs.blobsDirectory) }
        let (count, bytes, kept) = try await catalog.write { db -> (Int, Int64, Int) in
            let known = try BlobRecord.allHashes(in: db)
            var (count, bytes, kept) = (0, Int64(0), 0)
            for file in files where !known.contains(file.hash.rawValue) {
                guard file.modified < cutoff else { kept += 1; continue }
                if !dryRun { try blobs.remove(file.hash) }
                count += 1
                bytes += file.byteCount
            }
            return (count, bytes, kept)
        }
        report.orphanFiles = count
        report.orphanBytes = bytes
        report.keptInGracePeriod += kept
    }
}
