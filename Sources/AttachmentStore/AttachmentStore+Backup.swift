import CatalogSQL
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

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
        let target = StoreLayout(directory: destination)
        let source = layout
        try await BlockingPool.run { () throws in try Self.prepareBackupFolder(target, source: source) }
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
        let target = StoreLayout(directory: directory)
        try await BlockingPool.run { () throws in
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: target.root)) ?? []
            guard entries.isEmpty else { throw Error.invalidArgument("\(target.root) is not empty; restore into a new or empty folder") }
        }
        let store = try await open(at: backup)
        try await store.refuseDamagedBackup()
        return try await store.backup(to: directory, progress: progress)
    }

    /// Checks this store, a backup about to be restored, before the restore writes anything:
    /// every blob hash its catalog holds, and the way to each original it keeps as a file.
    /// - Throws: ``Error/damagedCatalogRow(_:)``, ``Error/notAStore(path:reason:)`` naming a link.
    private func refuseDamagedBackup() async throws {
        try await catalog.refuseMalformedBlobHashes()
        guard backend.placement == .files else { return }
        let present = try await catalog.read { db in try BlobRecord.all(in: .present, in: db) }
        let hashes = try present.map { record throws(Error) in try record.validatedHash }
        let blobs = self.blobs
        if let problem = try await BlockingPool.run({ hashes.lazy.compactMap(blobs.linkOnTheWay).first }) {
            throw Error.notAStore(path: layout.root, reason: problem)
        }
    }

    /// Checks that `target` may receive a backup of the store at `source`, and creates its folders.
    private static func prepareBackupFolder(_ target: StoreLayout, source: StoreLayout) throws(Error) {
        guard target.root != source.root, !target.root.hasPrefix(source.root + "/"), !source.root.hasPrefix(target.root + "/") else {
            throw .invalidArgument("the backup folder \(target.root) must be outside the store \(source.root)")
        }
        let manager = FileManager.default
        let entries = (try? manager.contentsOfDirectory(atPath: target.root)) ?? []
        if !entries.isEmpty && !manager.fileExists(atPath: target.catalogPath) {
            throw .invalidArgument("\(target.root) holds something other than a backup; choose a new or empty folder, or an earlier backup")
        }
        do throws(SystemError) {
            for path in [target.root, target.blobsPath, target.temporaryPath] { try POSIXFile.makeDirectories(path) }
            // The photos are the owner's alone, in a backup as in the store.
            guard chmod(target.root, 0o700) == 0 else { throw SystemError("chmod \(target.root)") }
        } catch {
            throw .writeFailed(path: target.root, cause: .system(error))
        }
    }

    /// Takes snapshots until one whose originals are all copied (at most ``backupAttempts``),
    /// then puts it in place and removes what it no longer references.
    private func copySnapshot(into target: StoreLayout, progress: (@Sendable (BackupProgress) -> Void)?) async throws -> BackupReport {
        var report = BackupReport(destination: target.root)
        let backupBlobs = BlobStore(root: target.root)
        let snapshotPath = target.temporaryPath + "/catalog-snapshot.sqlite"
        for attempt in 1...Self.backupAttempts {
            report = BackupReport(destination: target.root)
            report.snapshots = attempt
            let snapshot = try await takeSnapshot(at: snapshotPath, target: target)
            report.notes = snapshot.notes
            report.attachments = snapshot.attachments
            report.blobs = snapshot.blobs.count
            report.blobBytes = snapshot.blobs.reduce(0) { $0 + $1.byteCount }
            if try await copyOriginals(snapshot.blobs, into: backupBlobs, report: &report, progress: progress) {
                let placingFiles = backend.placement == .objectStore
                let (catalogBytes, removed) = try await Self.writingBackup(target) { () throws -> (Int64, Int) in
                    let catalogBytes = try snapshot.finish(placingFiles: placingFiles)
                    try Self.replaceCatalog(of: target, with: snapshotPath)
                    return (catalogBytes, try Self.removeUnreferenced(in: backupBlobs, keeping: Set(snapshot.blobs.map(\.hash.rawValue))))
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
    private func takeSnapshot(at path: String, target: StoreLayout) async throws -> BackupSnapshot {
        try await Self.writingBackup(target) {
            for suffix in ["", "-wal", "-shm"] { try POSIXFile.remove(path + suffix) }
        }
        if let database = catalog.database as? SQLiteCatalogDatabase {
            try await Self.writingBackup(target) { try database.snapshot(to: path) }
        } else {
            do {
                _ = try await CatalogExport.copy(from: catalog.database, toSQLiteAt: path, busyTimeout: configuration.busyTimeout)
            } catch let error as SQLDatabaseError {
                throw Catalog.storeError(error)
            }
        }
        return try await Self.writingBackup(target) { try BackupSnapshot.read(path) }
    }

    /// Copies each original into the backup; `false` when one was gone from the store.
    private func copyOriginals(_ originals: [BackupSnapshot.Original], into backupBlobs: BlobStore, report: inout BackupReport,
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
    private func place(_ original: BackupSnapshot.Original, into backupBlobs: BlobStore) async throws -> BackupBlobCopy.Outcome {
        try await backend.copy(original.hash, byteCount: original.byteCount, into: backupBlobs)
    }

    /// Runs `body` on the blocking pool, reporting a failed system call or SQLite error as
    /// ``Error/writeFailed(path:cause:)`` on the backup.
    private static func writingBackup<T: Sendable>(_ target: StoreLayout, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingPool.run(body)
        } catch let error as SystemError {
            throw Error.writeFailed(path: target.root, cause: .system(error))
        } catch let error as DatabaseError {
            throw Error.writeFailed(path: target.root, cause: .database(SQLiteCatalogDatabase.classified(error)))
        }
    }

    /// Renames the finished snapshot over the backup's catalog (dropping a stale -wal and -shm
    /// of the old one first) and syncs the folder.
    private static func replaceCatalog(of target: StoreLayout, with snapshotPath: String) throws {
        for suffix in ["-wal", "-shm"] { try POSIXFile.remove(target.catalogPath + suffix) }
        guard rename(snapshotPath, target.catalogPath) == 0 else { throw SystemError("rename \(snapshotPath) to \(target.catalogPath)") }
        try POSIXFile.syncDirectory(target.root)
    }

    /// Removes the backup's originals that `kept` does not name; how many.
    private static func removeUnreferenced(in backupBlobs: BlobStore, keeping kept: Set<String>) throws -> Int {
        var removed = 0
        for file in BlobFileScan.files(in: backupBlobs.blobsDirectory) where !kept.contains(file.hash.rawValue) {
            try POSIXFile.remove(backupBlobs.path(for: file.hash))
            removed += 1
        }
        return removed
    }
}

/// A catalog snapshot in a backup's `tmp/`: what it references, and the last changes that make
/// it the backup's catalog.
struct BackupSnapshot {
    /// One original the snapshot references and the backup must hold.
    struct Original: Sendable {
        var hash: BlobHash
        var byteCount: Int64
    }

    let path: String
    let notes: Int
    let attachments: Int
    /// Present originals that an attachment or image entry references, as files (an empty list
    /// for a store that keeps its bytes in the catalog).
    let blobs: [Original]

    /// Reads what the snapshot at `path` references. Blocks.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` when any blob hash in it is
    ///   malformed, before any original is placed.
    static func read(_ path: String) throws -> BackupSnapshot {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let transaction = GRDBTransaction(db: db)
            if let malformed = try BlobHashColumns.malformed(in: transaction, .sqlite, limit: 1).first {
                throw AttachmentStore.Error.damagedCatalogRow(malformed)
            }
            let placement = try StoreSetting.value("blobPlacement", in: transaction)
            let unreferenced = Set(try BlobRecord.unreferenced(in: transaction).map(\.hash))
            let originals = placement == BlobPlacement.catalog.rawValue ? [] : try BlobRecord.all(in: .present, in: transaction)
                .filter { !unreferenced.contains($0.hash) }
                .map { Original(hash: try $0.validatedHash, byteCount: $0.byteCount) }
            return BackupSnapshot(
                path: path,
                notes: Int(try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM note") ?? 0),
                attachments: Int(try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM attachment") ?? 0),
                blobs: originals.sorted { $0.hash < $1.hash })
        }
    }

    /// Drops the rows of originals nothing references (garbage `gc` had not yet collected),
    /// object-store leases, login sessions and resumable uploads (all belong to the running
    /// servers), and — for a store whose originals live in an object store — records that the
    /// backup keeps them as files. Returns the snapshot's size. Blocks.
    func finish(placingFiles: Bool) throws -> Int64 {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let transaction = GRDBTransaction(db: db)
            for record in try BlobRecord.unreferenced(in: transaction) { try BlobRecord.delete(record.hash, in: transaction) }
            try db.execute(sql: "DELETE FROM blobLease")
            try db.execute(sql: "DELETE FROM loginSession")
            try db.execute(sql: "DELETE FROM resumableUploadPart")
            try db.execute(sql: "DELETE FROM resumableUpload")
            if placingFiles {
                try StoreSetting.set("blobPlacement", BlobPlacement.files.rawValue, in: transaction)
                try db.execute(sql: "DELETE FROM storeSetting WHERE key = 'objectStoreLocation'")
            }
        }
        try queue.close()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        try POSIXFile.sync(fd)
        return Int64(try POSIXFile.status(path)?.st_size ?? 0)
    }
}
