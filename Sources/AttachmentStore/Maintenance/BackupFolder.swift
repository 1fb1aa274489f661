import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The folder a backup is written into (itself a store: catalog, `blobs/`, `tmp/`), and the
/// file handling that writing one takes. Every method blocks; the store runs them on the
/// blocking pool.
struct BackupFolder: Sendable {
    /// The backup's layout.
    let layout: StoreLayout

    init(_ layout: StoreLayout) {
        self.layout = layout
    }

    /// The backup's folder.
    var root: String { layout.root }

    /// The backup's originals, as a blob folder.
    var blobs: StoreFolderBlobs { StoreFolderBlobs(root: layout.root) }

    /// Where a catalog snapshot is written before it becomes the backup's catalog.
    var snapshotPath: String { layout.temporaryPath + "/catalog-snapshot.sqlite" }

    /// Checks that this folder may receive a backup of the store at `source` (outside it,
    /// missing, empty or an earlier backup) and creates its folders, readable by the owner only.
    /// - Throws: ``AttachmentStore/Error/invalidArgument(_:)``, ``AttachmentStore/Error/writeFailed(path:cause:)``.
    func prepare(forBackupOf source: StoreLayout) throws(AttachmentStore.Error) {
        guard root != source.root, !root.hasPrefix(source.root + "/"), !source.root.hasPrefix(root + "/") else {
            throw .invalidArgument("the backup folder \(root) must be outside the store \(source.root)")
        }
        if !POSIXFile.names(in: root).isEmpty && !FileManager.default.fileExists(atPath: layout.catalogPath) {
            throw .invalidArgument("\(root) holds something other than a backup; choose a new or empty folder, or an earlier backup")
        }
        do throws(SystemError) {
            for path in [root, layout.blobsPath, layout.temporaryPath] { try POSIXFile.makeDirectories(path) }
            // The photos are the owner's alone, in a backup as in the store.
            guard chmod(root, 0o700) == 0 else { throw SystemError("chmod \(root)") }
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
    }

    /// Checks that this folder may receive a restore: missing or empty.
    /// - Throws: ``AttachmentStore/Error/invalidArgument(_:)``.
    func requireEmptyForRestore() throws(AttachmentStore.Error) {
        guard POSIXFile.names(in: root).isEmpty else { throw .invalidArgument("\(root) is not empty; restore into a new or empty folder") }
    }

    /// Removes a snapshot an earlier backup left, with its `-wal` and `-shm`.
    func removeSnapshot() throws(SystemError) {
        for suffix in ["", "-wal", "-shm"] { try POSIXFile.remove(snapshotPath + suffix) }
    }

    /// Renames the finished snapshot at `snapshotPath` over the backup's catalog (dropping a
    /// stale `-wal` and `-shm` of the old one first) and syncs the folder.
    func replaceCatalog(with snapshotPath: String) throws(SystemError) {
        for suffix in ["-wal", "-shm"] { try POSIXFile.remove(layout.catalogPath + suffix) }
        guard rename(snapshotPath, layout.catalogPath) == 0 else { throw SystemError("rename \(snapshotPath) to \(layout.catalogPath)") }
        try POSIXFile.syncDirectory(root)
    }

    /// Removes the backup's originals that `kept` does not name; how many.
    func removeOriginals(keeping kept: Set<String>) throws(SystemError) -> Int {
        let blobs = self.blobs
        var removed = 0
        for file in BlobFileScan.files(in: blobs.blobsDirectory) where !kept.contains(file.hash.rawValue) {
            try POSIXFile.remove(blobs.path(for: file.hash))
            removed += 1
        }
        return removed
    }

    /// Runs `body` on the blocking pool, reporting a failed system call or SQLite error as
    /// ``AttachmentStore/Error/writeFailed(path:cause:)`` on this folder.
    func writing<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingPool.run(body)
        } catch let error as SystemError {
            throw AttachmentStore.Error.writeFailed(path: root, cause: .system(error))
        } catch let error as DatabaseError {
            throw AttachmentStore.Error.writeFailed(path: root, cause: .database(SQLiteCatalogDatabase.classified(error)))
        }
    }
}
