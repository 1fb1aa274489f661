import CatalogSQL
import Foundation
import Logging

/// Where a store's originals live, and every step of their life that depends on it: the
/// claim and upload before the transaction that references a blob, its install inside that
/// transaction, a local file for readers, its removal once unreferenced, and what `gc`,
/// `verify`, scrubbing and backups do with the stored bytes.
///
/// One type per ``BlobPlacement``: ``FileBlobBackend`` (files under `blobs/`),
/// ``CatalogBlobBackend`` (bytes in the catalog) and ``ObjectStoreBlobBackend`` (an S3 bucket or
/// a shared directory). The store talks to this protocol only; a new placement is a new
/// conforming type and one line in ``BlobBackends/make(for:files:context:)``.
protocol BlobBackend: Sendable {
    /// The placement this backend implements.
    var placement: BlobPlacement { get }

    // MARK: Ingest

    /// Inside the write transaction that references the blob: puts the staged bytes where this
    /// placement keeps them. Blocks.
    func install(_ staged: StagedBlob, in db: any SQLTransaction) throws -> StoreFolderBlobs.Installation

    /// Inside the one write transaction that references them all: installs a batch, with as
    /// few flushes as the placement allows (files: one `syncfs` for every rename). The default
    /// installs them one by one. Blocks.
    func install(batch: [StagedBlob], in db: any SQLTransaction) throws -> [StoreFolderBlobs.Installation]

    // MARK: Reading

    /// The file readers use for `hash`, which may not exist yet (thumbnail prefetches).
    func readablePath(for hash: BlobHash) -> String
    /// Whether ``readablePath(for:)`` is worth trying before anyone read the blob.
    var hasFileBeforeFirstRead: Bool { get }
    /// A local file holding the bytes of `hash`, written out or downloaded (and checked against
    /// the hash) when needed; the read is recorded for the storage budget.
    /// - Throws: ``AttachmentStore/Error/blobMissing(_:)`` when the bytes are not there.
    func localFile(for hash: BlobHash) async throws -> String

    // MARK: Removal

    /// Inside the write transaction that found `hash` unreferenced: removes its local files.
    /// Blocks.
    func remove(_ hash: BlobHash) throws(AttachmentStore.Error)
    /// How `gc` dates and counts an unreferenced blob (`hash`, its record's hash checked). Blocks.
    func garbageFacts(of record: BlobRecord, hash: BlobHash) -> BlobGarbageFacts
    /// `gc`'s second half: removes stored bytes the catalog does not know, older than `cutoff`
    /// (or at once for `removedRows`, whose rows `gc` just deleted).
    func collectOrphans(before cutoff: Date, grace: Duration, removedRows: Set<BlobHash>,
                        dryRun: Bool) async throws -> BlobOrphanCount

    // MARK: Checks

    /// How many stored blobs the catalog (`known` hashes) does not know.
    func countUnknown(known: Set<String>) async throws -> Int
    /// Re-hashes the stored bytes of `hash`; `judge` says what is wrong with the hash and size
    /// found, `nil` when intact.
    func inspect(_ hash: BlobHash, judge: @escaping BlobJudge) async throws -> BlobDamage?
    /// Inside the transaction that marks `hash` damaged: moves its bytes into `folder` (or drops a
    /// local copy that can be fetched again), so nothing serves them. Blocks.
    func quarantine(_ hash: BlobHash, into folder: String) throws(SystemError)
    /// Puts the original `hash` into a backup's blob files.
    func copy(_ hash: BlobHash, byteCount: Int64, into backup: StoreFolderBlobs) async throws -> BackupBlobCopy.Outcome
}

extension BlobBackend {
    func install(batch: [StagedBlob], in db: any SQLTransaction) throws -> [StoreFolderBlobs.Installation] {
        try batch.map { try install($0, in: db) }
    }
}

/// A backend whose bytes live outside the store folder and are uploaded before the catalog
/// transaction that references them (the object store): the upload-claim protocol is whole
/// here, so backends that install inside the transaction carry none of it.
protocol UploadingBlobBackend: BlobBackend {
    /// Runs `body`, the transaction that references `staged`, with its bytes uploaded first
    /// under a claim that keeps any `gc` from deleting the object until `body` has committed
    /// (released inside it); content the catalog already records present needs no upload. With
    /// `locks`, the transaction is keyed (``Catalog/write(locking:_:)``). When the transaction
    /// fails, the upload is undone.
    /// - Throws: ``AttachmentStore/Error/objectStore(_:)`` when the upload fails; what `body` throws.
    func committing<T: Sendable>(_ staged: StagedBlob, locks: [CatalogLock]?,
                                 _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T
    /// Before the transaction that references `staged`: claims the blob and uploads it unless
    /// the catalog already records its bytes. The referencing transaction releases the claim.
    /// - Throws: ``AttachmentStore/Error/objectStore(_:)`` when the upload fails (the claim is
    ///   released first).
    func claimAndUpload(_ staged: StagedBlob) async throws -> BlobUploadClaim?
    /// Undoes a claim whose referencing transaction failed.
    func abandon(_ claim: BlobUploadClaim, of hash: BlobHash) async
    /// After the transaction that found `hash` unreferenced committed: removes the stored
    /// object, unless an ingest claimed it meanwhile.
    func removeStored(_ hash: BlobHash) async throws
}

extension BlobBackend {
    /// Whether bytes are uploaded before the transaction that references them (so an ingest
    /// stages them durably first, and batches commit one by one).
    var uploadsBeforeCommit: Bool { self is any UploadingBlobBackend }
}

/// What `verify` found wrong with a blob, and the detail.
typealias BlobDamage = (VerificationReport.Damage.Kind, String)
/// Judges the hash and size found for a blob: the damage, or `nil` when intact.
typealias BlobJudge = @Sendable (BlobHash, Int64) -> BlobDamage?

/// A claim on a blob an ingest is about to reference.
struct BlobUploadClaim: Sendable {
    /// Who holds it (released by the referencing transaction).
    let holder: String
    /// Whether this ingest uploaded the object (rather than finding it recorded).
    let uploaded: Bool
}

/// How `gc` treats one unreferenced blob.
struct BlobGarbageFacts {
    /// When it was last written (its file's date, else when its row was made).
    var age: Date
    /// Whether it goes whatever its age (its file is already missing).
    var collectNow: Bool
    /// The bytes its removal frees.
    var bytes: Int64
}

/// What `gc` removed (or would) of the stored bytes the catalog does not know.
struct BlobOrphanCount {
    var count = 0
    var bytes: Int64 = 0
    var kept = 0
}

/// What every backend needs of its store.
struct BlobBackendContext: Sendable {
    let files: StoreFolderBlobs
    let catalog: Catalog
    let layout: StoreLayout
    let logger: Logger
    /// How long an upload claim protects an object from another process's `gc`.
    let uploadLease: Duration
}

/// Makes the backend for a placement.
enum BlobBackends {
    /// The backend for `placement` (an object store's needs `objectStore`).
    static func make(for placement: BlobPlacement, objectStore: (any BlobObjectStore)?, context: BlobBackendContext) -> any BlobBackend {
        switch (placement, objectStore) {
        case (.objectStore, let store?): ObjectStoreBlobBackend(store: store, context: context)
        case (.catalog, _): CatalogBlobBackend(context: context)
        default: FileBlobBackend(context: context)
        }
    }
}

extension StoreFolderBlobs {
    /// `gc` for files under `blobs/` the catalog does not know, older than `cutoff`: removed in a
    /// write transaction that rechecks they are unknown. Shared by the placements that can
    /// leave such files.
    func collectUnknownFiles(before cutoff: Date, catalog: Catalog, dryRun: Bool) async throws -> BlobOrphanCount {
        let files = try await BlockingPool.run { [blobsDirectory] in BlobFileScan.files(in: blobsDirectory) }
        return try await catalog.write { [self] db -> BlobOrphanCount in
            let known = try BlobRecord.known(among: files.map(\.hash.rawValue), in: db)
            var count = BlobOrphanCount()
            for file in files where !known.contains(file.hash.rawValue) {
                guard file.modified < cutoff else { count.kept += 1; continue }
                if !dryRun { try remove(file.hash) }
                count.count += 1
                count.bytes += file.byteCount
            }
            return count
        }
    }

    /// How many files under `blobs/` are not among `known` hashes. Blocks.
    func countUnknownFiles(known: Set<String>) -> Int {
        BlobFileScan.files(in: blobsDirectory).filter { !known.contains($0.hash.rawValue) }.count
    }

    /// Re-hashes the file at `path`.
    static func inspectFile(at path: String, judge: @escaping BlobJudge) async throws -> BlobDamage? {
        try await BlockingPool.run {
            guard (try? POSIXFile.status(path)) ?? nil != nil else { return (.missing, "no file at \(path)") }
            do {
                let (actual, size) = try BlobFileScan.hash(fileAt: path)
                return judge(actual, size)
            } catch {
                return (.unreadable, String(describing: error))
            }
        }
    }
}
