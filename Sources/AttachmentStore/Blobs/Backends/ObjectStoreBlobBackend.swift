import CatalogSQL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Originals in an object store outside the store folder (an S3 bucket, or a directory several
/// servers share), one object per blob named by its hash. The store folder keeps readers'
/// local copies in `cache/blobs/` (derived, checked against the hash when downloaded).
///
/// The upload-claim protocol lives here, whole: an ingest claims a blob in the catalog
/// (`BlobLease`) before uploading it and releases the claim in the transaction that
/// references it; `gc` claims an object before deleting it, and an upload of the same
/// content waits for that delete. So no object is deleted under a live claim, and none an
/// acknowledged ingest references.
struct ObjectStoreBlobBackend: UploadingBlobBackend {
    /// How long `gc`'s claim on an object it is deleting keeps ingests of the same content
    /// waiting, at most (a delete that takes longer has failed). Ten minutes.
    static let deletionLease: TimeInterval = 600

    let store: any BlobObjectStore
    let context: BlobBackendContext
    var placement: BlobPlacement { .objectStore }
    var hasFileBeforeFirstRead: Bool { true }
    private var files: StoreFolderBlobs { context.files }
    private var catalog: Catalog { context.catalog }

    // MARK: Ingest

    func committing<T: Sendable>(_ staged: StagedBlob, locks: [CatalogLock]?,
                                 _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        // Content the object store already holds needs no upload and no claim: referencing it
        // in the same transaction that finds its row present keeps any gc away from it.
        if let done = try await catalog.write(lockingIfAny: locks, { db -> T? in
            guard try BlobRecord.isPresent(staged.hash.rawValue, in: db) else { return nil }
            return try body(db)
        }) {
            return done
        }
        let claim = try await claimAndUpload(staged)
        do {
            return try await catalog.write(lockingIfAny: locks) { db in
                let value = try body(db)
                if let claim { try BlobLease.release(staged.hash, holder: claim.holder, in: db) }
                return value
            }
        } catch {
            if let claim { await abandon(claim, of: staged.hash) }
            throw error
        }
    }

    func claimAndUpload(_ staged: StagedBlob) async throws -> BlobUploadClaim? {
        let hash = staged.hash
        let holder = UUID().uuidString.lowercased()
        let expiry = Date().addingTimeInterval(Self.seconds(context.uploadLease))
        var present = false
        claiming: while true {
            switch try await catalog.write(locking: [.blob(hash)], { db in try BlobLease.claimUpload(hash, holder: holder, until: expiry, in: db) }) {
            case .claimed(let isPresent):
                present = isPresent
                break claiming
            case .beingDeleted:
                // A gc is deleting this content's object; upload once it is gone.
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        guard !present else { return BlobUploadClaim(holder: holder, uploaded: false) }
        do {
            try await store.upload(fileAt: staged.temporaryPath, as: hash, byteCount: staged.byteCount)
        } catch {
            await releaseLease(on: hash, holder: holder)
            throw Self.storeError(error, operation: "upload blob \(hash.short)", location: store.location)
        }
        return BlobUploadClaim(holder: holder, uploaded: true)
    }

    /// Releases the claim and deletes the object unless something else now holds or records it.
    /// A failure here is logged and leaves the object to `gc`.
    func abandon(_ claim: BlobUploadClaim, of hash: BlobHash) async {
        await releaseLease(on: hash, holder: claim.holder)
        guard claim.uploaded else { return }
        do {
            _ = try await deleteUnclaimedObject(hash)
        } catch {
            context.logger.warning("an uploaded object nothing references stays until gc removes it",
                                   metadata: ["blob": "\(hash)", "error": "\(error)"])
        }
    }

    /// The upload happened before the transaction; the staged file is kept as the local copy
    /// readers use (a hard link into `cache/blobs/`, derived data), when that works.
    func install(_ staged: StagedBlob, in db: any SQLTransaction) throws -> StoreFolderBlobs.Installation {
        let destination = copies.path(for: staged.hash)
        if (try? POSIXFile.status(destination)) ?? nil != nil { return .alreadyPresent }
        let directory = POSIXFile.parentFolder(of: destination)
        if (try? POSIXFile.makeDirectories(directory)) != nil {
            _ = link(staged.temporaryPath, destination)
        }
        return .installed
    }

    // MARK: Reading

    private var copies: LocalCopyCache { LocalCopyCache(files: files) }

    func readablePath(for hash: BlobHash) -> String { copies.path(for: hash) }

    func localFile(for hash: BlobHash) async throws -> String {
        if let copy = try await copies.existingCopy(of: hash) { return copy }
        return try await download(hash)
    }

    /// Downloads the object of `hash` into its local copy, checking that it hashes to its name
    /// before it can be read.
    /// - Throws: ``AttachmentStore/Error/blobMissing(_:)`` when the object store has no such
    ///   object, ``AttachmentStore/Error/hashMismatch(expected:actual:)`` when its bytes are not
    ///   the blob's, ``AttachmentStore/Error/objectStore(_:)`` when the object store fails.
    private func download(_ hash: BlobHash) async throws -> String {
        do {
            return try await copies.fill(hash, logger: context.logger) { [store] partial in
                try await store.download(hash, toFile: partial)
                try await BlockingPool.run {
                    let (actual, _) = try BlobFileScan.hash(fileAt: partial)
                    guard actual == hash else { throw AttachmentStore.Error.hashMismatch(expected: hash, actual: actual) }
                }
            }
        } catch {
            if case BlobObjectStoreError.missing = error { throw AttachmentStore.Error.blobMissing(hash) }
            throw Self.storeError(error, operation: "download blob \(hash.short)", location: store.location)
        }
    }

    // MARK: Removal

    /// Only the local copy goes inside the transaction; the object goes afterwards, under a claim.
    func remove(_ hash: BlobHash) throws(AttachmentStore.Error) { try files.remove(hash) }

    func removeStored(_ hash: BlobHash) async throws { _ = try await deleteUnclaimedObject(hash) }

    func garbageFacts(of record: BlobRecord, hash: BlobHash) -> BlobGarbageFacts {
        BlobGarbageFacts(age: record.createdAt, collectNow: false, bytes: record.state == .present ? record.byteCount : 0)
    }

    /// Deletes objects no catalog row names (left by a failed or crashed ingest, or whose rows
    /// were just removed), each under a deletion claim so no ingest can be uploading it meanwhile.
    func collectOrphans(before cutoff: Date, grace: Duration, removedRows: Set<BlobHash>, dryRun: Bool) async throws -> BlobOrphanCount {
        // Object stores date objects by their own clock (Swift's S3 API rounds up to the next
        // second): with no grace every unclaimed orphan goes, whatever its date.
        let cutoff = grace <= .zero ? Date.distantFuture : cutoff
        if !dryRun { _ = try await catalog.write { db in try BlobLease.removeExpired(in: db) } }
        let objects = try await allObjects()
        let listed = objects.map(\.hash.rawValue)
        let known = try await catalog.read { db in try BlobRecord.known(among: listed, in: db) }
        var count = BlobOrphanCount()
        for object in objects where !known.contains(object.hash.rawValue) {
            let rowJustRemoved = removedRows.contains(object.hash)
            guard rowJustRemoved || (object.lastModified ?? .distantFuture) < cutoff else { count.kept += 1; continue }
            if !dryRun, try await !deleteUnclaimedObject(object.hash) {
                count.kept += 1
                continue
            }
            guard !rowJustRemoved else { continue }
            count.count += 1
            count.bytes += object.byteCount
        }
        return count
    }

    /// Deletes the object of `hash` under a deletion claim, unless the catalog has a row for it
    /// or an ingest is uploading it; returns whether it was deleted.
    /// - Throws: ``AttachmentStore/Error/objectStore(_:)`` when the object store fails (the
    ///   claim is released).
    private func deleteUnclaimedObject(_ hash: BlobHash) async throws -> Bool {
        let holder = "gc-" + UUID().uuidString.lowercased()
        let expiry = Date().addingTimeInterval(Self.deletionLease)
        guard try await catalog.write({ db in try BlobLease.claimDeletion(hash, holder: holder, until: expiry, in: db) }) else {
            return false
        }
        do {
            try await store.delete(hash)
        } catch {
            await releaseLease(on: hash, holder: holder)
            throw Self.storeError(error, operation: "delete blob \(hash.short)", location: store.location)
        }
        await releaseLease(on: hash, holder: holder)
        return true
    }

    /// Ends a claim; a failure is logged, not thrown: an unreleased claim expires on its own.
    private func releaseLease(on hash: BlobHash, holder: String) async {
        do {
            try await catalog.write(locking: [.blob(hash)]) { db in try BlobLease.release(hash, holder: holder, in: db) }
        } catch {
            context.logger.warning("a blob claim could not be released; it expires on its own",
                                   metadata: ["blob": "\(hash)", "error": "\(error)"])
        }
    }

    // MARK: Checks

    func countUnknown(known: Set<String>) async throws -> Int {
        let files = try await BlockingPool.run { [files] in files.countUnknownFiles(known: known) }
        return try await files + allObjects().filter { !known.contains($0.hash.rawValue) }.count
    }

    private func allObjects() async throws -> [BlobObject] {
        var objects: [BlobObject] = []
        do {
            for try await object in store.objects() { objects.append(object) }
        } catch {
            throw Self.storeError(error, operation: "list the blobs", location: store.location)
        }
        return objects
    }

    /// Downloads the object into `tmp/` (locked, so a concurrent gc leaves it alone) and judges
    /// its bytes; the copy is removed afterwards.
    func inspect(_ hash: BlobHash, judge: @escaping BlobJudge) async throws -> BlobDamage? {
        let name = "verify-" + UUID().uuidString.lowercased()
        let layout = context.layout
        let path = layout.temporaryPath + "/" + name
        let lock = try await BlockingPool.run { () throws -> Int32 in
            do throws(SystemError) {
                return try POSIXFile.createLocked(named: name, in: layout.temporaryPath)
            } catch {
                throw AttachmentStore.Error.writeFailed(path: layout.root, cause: .system(error))
            }
        }
        let outcome: Result<BlobDamage?, any Swift.Error>
        do {
            outcome = .success(try await downloadAndJudge(hash, into: path, judge: judge))
        } catch {
            outcome = .failure(error)
        }
        // Removed before it is unlocked, so no gc ever finds it unlocked.
        do {
            try await BlockingPool.run {
                defer { close(lock) }
                try POSIXFile.remove(path)
            }
        } catch {
            context.logger.warning("verify's copy of an object stays in tmp/ until gc removes it",
                                   metadata: ["path": "\(path)", "error": "\(error)"])
        }
        return try outcome.get()
    }

    private func downloadAndJudge(_ hash: BlobHash, into path: String, judge: @escaping BlobJudge) async throws -> BlobDamage? {
        do {
            try await store.download(hash, toFile: path)
        } catch BlobObjectStoreError.missing {
            return (.missing, "no object in \(store.location)")
        } catch let error as CancellationError {
            throw error
        } catch let error as BlobObjectStoreError {
            if case .corrupt(_, let reason) = error { return (.unreadable, reason) }
            throw AttachmentStore.Error.objectStore(error)
        }
        return try await StoreFolderBlobs.inspectFile(at: path, judge: judge)
    }

    /// The object stays (it may be the only copy); only the local copy goes, so nothing serves it.
    func quarantine(_ hash: BlobHash, into folder: String) throws(SystemError) {
        try copies.remove(hash)
    }

    func copy(_ hash: BlobHash, byteCount: Int64, into backup: StoreFolderBlobs) async throws -> BackupBlobCopy.Outcome {
        let destination = backup.path(for: hash)
        if let existing = try await BlockingPool.run({ try POSIXFile.status(destination) }), Int64(existing.st_size) == byteCount {
            return .reused
        }
        let temporary = backup.temporaryDirectory + "/download-" + hash.rawValue
        do {
            try await store.download(hash, toFile: temporary)
        } catch BlobObjectStoreError.missing {
            return .sourceMissing
        } catch {
            throw Self.storeError(error, operation: "download an original for the backup", location: store.location)
        }
        try await BlockingPool.run { () throws in
            do throws(SystemError) {
                chmod(temporary, 0o400)
                try BackupBlobCopy.moveIntoPlace(temporary, destination)
            } catch {
                throw AttachmentStore.Error.writeFailed(path: backup.root, cause: .system(error))
            }
        }
        return .copied
    }

    // MARK: Support

    /// A store error for what an object store threw; store errors pass through.
    static func storeError(_ error: any Swift.Error, operation: String, location: String) -> any Swift.Error {
        switch error {
        case let error as AttachmentStore.Error: error
        case let error as BlobObjectStoreError: AttachmentStore.Error.objectStore(error)
        case let error as CancellationError: error
        default: AttachmentStore.Error.objectStore(.unavailable(operation: operation, location: location, cause: .init(error)))
        }
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
