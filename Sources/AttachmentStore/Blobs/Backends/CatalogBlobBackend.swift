import CatalogSQL
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Originals inside the catalog, in `blobContent` (kept for comparison in `make bench`: the
/// database grows as large as the photos and every read goes through it). Readers get a copy
/// written out once into `cache/blobs/` (derived data).
struct CatalogBlobBackend: BlobBackend {
    let context: BlobBackendContext
    var placement: BlobPlacement { .catalog }
    var hasFileBeforeFirstRead: Bool { false }
    private var files: StoreFolderBlobs { context.files }


    func install(_ staged: StagedBlob, in db: any SQLTransaction) throws -> StoreFolderBlobs.Installation {
        if try BlobContentRecord.exists(staged.hash, in: db) { return .alreadyPresent }
        guard let bytes = FileManager.default.contents(atPath: staged.temporaryPath) else {
            throw AttachmentStore.Error.writeFailed(path: files.root, cause: .condition("the staged copy vanished"))
        }
        try BlobRecord.markPresent(staged.hash, byteCount: staged.byteCount, in: db)
        try BlobContentRecord.insert(staged.hash, bytes: bytes, in: db)
        return .installed
    }

    private var copies: LocalCopyCache { LocalCopyCache(files: files) }

    func readablePath(for hash: BlobHash) -> String { copies.path(for: hash) }

    func localFile(for hash: BlobHash) async throws -> String {
        if let copy = try await copies.existingCopy(of: hash) { return copy }
        guard let bytes = try await context.catalog.read({ db in try BlobContentRecord.bytes(of: hash, in: db) }) else {
            throw AttachmentStore.Error.blobMissing(hash)
        }
        return try await copies.fill(hash, logger: context.logger) { partial in
            try await BlockingPool.run {
                guard FileManager.default.createFile(atPath: partial, contents: bytes) else {
                    throw AttachmentStore.Error.writeFailed(path: partial, cause: .system(SystemError("create")))
                }
            }
        }
    }

    func remove(_ hash: BlobHash) throws(AttachmentStore.Error) { try files.remove(hash) }

    func garbageFacts(of record: BlobRecord, hash: BlobHash) -> BlobGarbageFacts {
        BlobGarbageFacts(age: record.createdAt, collectNow: false, bytes: record.state == .present ? record.byteCount : 0)
    }

    func collectOrphans(before cutoff: Date, grace: Duration, removedRows: Set<BlobHash>, dryRun: Bool) async throws -> BlobOrphanCount {
        try await files.collectUnknownFiles(before: cutoff, catalog: context.catalog, dryRun: dryRun)
    }

    func countUnknown(known: Set<String>) async throws -> Int {
        try await BlockingPool.run { [files] in files.countUnknownFiles(known: known) }
    }

    func inspect(_ hash: BlobHash, judge: @escaping BlobJudge) async throws -> BlobDamage? {
        guard let bytes = try await context.catalog.read({ db in try BlobContentRecord.bytes(of: hash, in: db) }) else {
            return (.missing, "no bytes in the catalog")
        }
        return try await BlockingPool.run { judge(BlobHash(digest: SHA256.hash(data: bytes)), Int64(bytes.count)) }
    }

    func quarantine(_ hash: BlobHash, into folder: String) throws(SystemError) {
        try copies.remove(hash)
    }

    func copy(_ hash: BlobHash, byteCount: Int64, into backup: StoreFolderBlobs) async throws -> BackupBlobCopy.Outcome {
        // A backup of a catalog-placed store carries the bytes in its catalog snapshot.
        .reused
    }
}
