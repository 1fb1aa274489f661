import CatalogSQL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Originals as content-addressed, read-only files under `blobs/` in the store folder (the
/// default). A file is renamed into place inside the transaction that references it, read
/// where it is, and removed inside the transaction that finds it unreferenced.
struct FileBlobBackend: BlobBackend {
    let context: BlobBackendContext
    var placement: BlobPlacement { .files }
    var hasFileBeforeFirstRead: Bool { true }
    private var files: StoreFolderBlobs { context.files }


    func install(_ staged: StagedBlob, in db: any SQLTransaction) throws -> StoreFolderBlobs.Installation {
        try files.installFile(staged, replacingExisting: try Self.untrusted(staged, in: db))
    }

    func install(batch: [StagedBlob], in db: any SQLTransaction) throws -> [StoreFolderBlobs.Installation] {
        try files.installFiles(try batch.map { ($0, try Self.untrusted($0, in: db)) })
    }

    /// Whether the file already at `staged`'s place must be replaced: a file under a row that is
    /// not `present` is not trusted (it may be the leftover of an eviction or the damaged bytes a
    /// scrub is moving away), so the fresh copy replaces it.
    private static func untrusted(_ staged: StagedBlob, in db: any SQLTransaction) throws -> Bool {
        try BlobRecord.fetch(staged.hash.rawValue, in: db).map { $0.state != .present } ?? false
    }

    func readablePath(for hash: BlobHash) -> String { files.path(for: hash) }

    func localFile(for hash: BlobHash) async throws -> String {
        let path = files.path(for: hash)
        // A read is what keeps an original from eviction under the storage budget.
        try await BlockingPool.run { LeastRecentlyRead.touch(path) }
        return path
    }

    func remove(_ hash: BlobHash) throws(AttachmentStore.Error) { try files.remove(hash) }

    func garbageFacts(of record: BlobRecord, hash: BlobHash) -> BlobGarbageFacts {
        let info = try? POSIXFile.status(files.path(for: hash))
        return BlobGarbageFacts(age: info.map(BlobFileScan.modificationDate) ?? record.createdAt,
                                collectNow: info == nil, bytes: info.map { Int64($0.st_size) } ?? 0)
    }

    func collectOrphans(before cutoff: Date, grace: Duration, removedRows: Set<BlobHash>, dryRun: Bool) async throws -> BlobOrphanCount {
        try await files.collectUnknownFiles(before: cutoff, catalog: context.catalog, dryRun: dryRun)
    }

    func countUnknown(known: Set<String>) async throws -> Int {
        try await BlockingPool.run { [files] in files.countUnknownFiles(known: known) }
    }

    func inspect(_ hash: BlobHash, judge: @escaping BlobJudge) async throws -> BlobDamage? {
        try await StoreFolderBlobs.inspectFile(at: files.path(for: hash), judge: judge)
    }

    func quarantine(_ hash: BlobHash, into folder: String) throws(SystemError) {
        try POSIXFile.makeDirectories(folder)
        let source = files.path(for: hash)
        if rename(source, folder + "/" + hash.rawValue) != 0 && errno != ENOENT { throw SystemError("rename \(source)") }
    }

    func copy(_ hash: BlobHash, byteCount: Int64, into backup: StoreFolderBlobs) async throws -> BackupBlobCopy.Outcome {
        let source = files.path(for: hash)
        return try await BlockingPool.run { [files] () throws -> BackupBlobCopy.Outcome in
            // A link in the source (a restore's backup) would bring a file from elsewhere along.
            if let problem = files.linkOnTheWay(to: hash) { throw AttachmentStore.Error.notAStore(path: files.root, reason: problem) }
            do throws(SystemError) {
                return try BackupBlobCopy.place(hash, byteCount: byteCount, from: source, into: backup)
            } catch {
                throw AttachmentStore.Error.writeFailed(path: backup.root, cause: .system(error))
            }
        }
    }
}
