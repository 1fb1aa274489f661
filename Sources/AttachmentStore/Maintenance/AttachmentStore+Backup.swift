import CatalogSQL
import Foundation

extension AttachmentStore {
    /// How many snapshots a backup takes at most when `gc` keeps removing originals it is copying.
    static let backupAttempts = 3

    /// Writes a consistent backup of the store into `destination` while the store stays in use:
    /// a snapshot of the catalog (SQLite's online backup) and every original it references, as
    /// files. The destination is itself a store — `attach verify --store DEST` checks it, and
    /// ``restore(from:to:progress:)`` makes a working store from it.
    ///
    /// Incremental: an original an earlier backup into `destination` already holds is kept (its
    /// name is its hash), a new one is hard-linked when `destination` is on the store's
    /// filesystem and copied otherwise, and originals the snapshot no longer references are
    /// removed. Originals in an object store are downloaded. The destination's catalog is
    /// replaced only once every original it names is in place, so a backup cut short leaves the
    /// previous one whole.
    /// - Parameters:
    ///   - destination: a missing or empty folder, or an earlier backup of this store.
    ///   - progress: called after each original.
    /// - Throws: ``Error/invalidArgument(_:)`` for a destination that is the store itself or holds
    ///   something else; ``Error/writeFailed(path:cause:)``. (A PostgreSQL catalog is exported
    ///   row for row into the backup's SQLite catalog.)
    public func backup(to destination: URL, progress: (@Sendable (BackupProgress) -> Void)? = nil) async throws -> BackupReport {
        let target = BackupFolder(StoreLayout(directory: destination))
        let source = layout
        try await BlockingPool.run { try target.prepare(forBackupOf: source) }
        return try await copySnapshot(into: target, progress: progress)
    }

    /// Makes a new store at `directory` from the backup at `backup` (a folder
    /// ``backup(to:progress:)`` wrote), hard-linking its originals when both are on one
    /// filesystem. The new store keeps the backed-up store's identity (its peer id): it is that
    /// store again, not a new peer.
    ///
    /// The backup is not trusted: before anything is written, every blob hash in its catalog
    /// must be 64 lowercase hexadecimal digits and no part of the way to an original it holds
    /// may be a symbolic link, so a crafted backup can neither name a path outside the new
    /// store nor slip a file from elsewhere into it.
    /// - Throws: ``Error/storeNotFound(path:)`` or ``Error/notAStore(path:reason:)`` for the
    ///   backup (also when its blobs folder holds a link); ``Error/damagedCatalogRow(_:)`` or
    ///   ``Error/catalogDamaged(_:)`` for a malformed hash in its catalog;
    ///   ``Error/invalidArgument(_:)`` when `directory` is not missing or empty.
    public static func restore(from backup: URL, to directory: URL, progress: (@Sendable (BackupProgress) -> Void)? = nil) async throws -> BackupReport {
        let target = BackupFolder(StoreLayout(directory: directory))
        try await BlockingPool.run { try target.requireEmptyForRestore() }
        let store = try await open(at: backup)
        try await store.refuseDamagedBackup()
        return try await store.backup(to: directory, progress: progress)
    }

    /// Checks this store, a backup about to be restored, before the restore writes anything:
    /// every blob hash its catalog holds, and the way to each original it keeps as a file.
    /// - Throws: ``Error/damagedCatalogRow(_:)``, ``Error/notAStore(path:reason:)`` naming a link.
    private func refuseDamagedBackup() async throws {
        try await catalog.refuseMalformedBlobHashes()
        guard backend.placement.keepsOriginalsAsFiles else { return }
        let present = try await catalog.read { db in try BlobRecord.all(in: .present, in: db) }
        let hashes = try present.map { record throws(Error) in try record.validatedHash }
        let blobs = self.blobs
        if let problem = try await BlockingPool.run({ hashes.lazy.compactMap(blobs.linkOnTheWay).first }) {
            throw Error.notAStore(path: layout.root, reason: problem)
        }
    }

    /// Takes snapshots until one whose originals are all copied (at most ``backupAttempts``),
    /// then puts it in place and removes what it no longer references.
    private func copySnapshot(into target: BackupFolder, progress: (@Sendable (BackupProgress) -> Void)?) async throws -> BackupReport {
        var report = BackupReport(destination: target.root)
        let backupBlobs = target.blobs
        let snapshotPath = target.snapshotPath
        for attempt in 1...Self.backupAttempts {
            report = BackupReport(destination: target.root)
            report.snapshots = attempt
            let snapshot = try await takeSnapshot(at: snapshotPath, target: target)
            report.notes = snapshot.notes
            report.attachments = snapshot.attachments
            report.blobs = snapshot.blobs.count
            report.blobBytes = snapshot.blobs.reduce(0) { $0 + $1.byteCount }
            if try await copyOriginals(snapshot.blobs, into: backupBlobs, report: &report, progress: progress) {
                let placingFiles = backend.placement.backupTurnsOriginalsIntoFiles
                let (catalogBytes, removed) = try await target.writing { () throws -> (Int64, Int) in
                    let catalogBytes = try snapshot.finish(placingFiles: placingFiles)
                    try target.replaceCatalog(with: snapshotPath)
                    return (catalogBytes, try target.removeOriginals(keeping: Set(snapshot.blobs.map(\.hash.rawValue))))
                }
                report.catalogBytes = catalogBytes
                report.removedBlobs = removed
                return report
            }
            configuration.logger.notice("an original went while the backup copied it; taking a new snapshot",
                                        metadata: ["attempt": "\(attempt)"])
        }
        throw Error.invalidArgument("the store changed too fast to back up (originals removed by gc during \(Self.backupAttempts) snapshots); try again")
    }

    /// Writes a consistent copy of the catalog to `path` — SQLite's online backup, or for a
    /// catalog in PostgreSQL a row-for-row export into a new SQLite file — and reads what it
    /// references.
    private func takeSnapshot(at path: String, target: BackupFolder) async throws -> BackupSnapshot {
        try await target.writing { try target.removeSnapshot() }
        if let database = catalog.database as? SQLiteCatalogDatabase {
            try await target.writing { try database.snapshot(to: path) }
        } else {
            do {
                _ = try await CatalogExport.copy(from: catalog.database, toSQLiteAt: path, busyTimeout: configuration.busyTimeout)
            } catch let error as SQLDatabaseError {
                throw Catalog.storeError(error)
            }
        }
        return try await target.writing { try BackupSnapshot.read(path) }
    }

    /// Copies each original into the backup; `false` when one was gone from the store.
    private func copyOriginals(_ originals: [BackupSnapshot.Original], into backupBlobs: StoreFolderBlobs, report: inout BackupReport,
                               progress: (@Sendable (BackupProgress) -> Void)?) async throws -> Bool {
        var done = BackupProgress(blobsDone: 0, blobs: originals.count, bytesDone: 0, bytes: report.blobBytes)
        for original in originals {
            try Task.checkCancellation()
            let outcome = try await place(original, into: backupBlobs)
            switch outcome {
            case .sourceMissing: return false
            case .reused: report.reusedBlobs += 1; report.reusedBytes += original.byteCount
            case .linked: report.linkedBlobs += 1; report.linkedBytes += original.byteCount
            case .copied: report.copiedBlobs += 1; report.copiedBytes += original.byteCount
            }
            done.blobsDone += 1
            done.bytesDone += original.byteCount
            progress?(done)
        }
        return true
    }

    /// Puts one original in the backup, from wherever this store keeps it.
    private func place(_ original: BackupSnapshot.Original, into backupBlobs: StoreFolderBlobs) async throws -> BackupBlobCopy.Outcome {
        try await backend.copy(original.hash, byteCount: original.byteCount, into: backupBlobs)
    }
}
