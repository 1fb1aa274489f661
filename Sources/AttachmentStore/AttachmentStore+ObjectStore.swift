import Foundation
import CatalogSQL
#if canImport(Glibc)
import Glibc
#endif

extension AttachmentStore {
    /// How long `gc`'s claim on an object it is deleting keeps ingests of the same content
    /// waiting, at most (a delete that takes longer has failed). Ten minutes.
    static let deletionLease: TimeInterval = 600

    /// A claim on a blob an ingest is about to reference.
    struct UploadClaim: Sendable {
        /// Who holds it (released by the referencing transaction).
        let holder: String
        /// Whether this ingest uploaded the object (rather than finding it recorded).
        let uploaded: Bool
    }

    /// For object-store placement: claims the blob and uploads it unless the catalog already
    /// records its bytes. The referencing transaction releases the claim; `nil` for other
    /// placements.
    /// - Throws: ``Error/objectStore(_:)`` when the upload fails (the claim is released first).
    func uploadToObjectStore(_ blob: IngestedBlob) async throws -> UploadClaim? {
        guard let objectStore = blobs.objectStore else { return nil }
        let hash = blob.staged.hash
        let holder = UUID().uuidString.lowercased()
        let expiry = Date().addingTimeInterval(Self.seconds(configuration.uploadLease))
        var present = false
        claiming: while true {
            switch try await catalog.write({ db in try BlobLease.claimUpload(hash, holder: holder, until: expiry, in: db) }) {
            case .claimed(let isPresent):
                present = isPresent
                break claiming
            case .beingDeleted:
                // A gc is deleting this content's object; upload once it is gone.
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        guard !present else { return UploadClaim(holder: holder, uploaded: false) }
        do {
            try await objectStore.upload(fileAt: blob.staged.temporaryPath, as: hash, byteCount: blob.staged.byteCount)
        } catch {
            await releaseLease(on: hash, holder: holder)
            throw Self.objectStoreError(error, operation: "upload blob \(hash.short)", location: objectStore.location)
        }
        return UploadClaim(holder: holder, uploaded: true)
    }

    /// Undoes an upload whose referencing transaction failed: releases the claim and deletes the
    /// object unless something else now holds or records it. A failure here is logged and leaves
    /// the object to `gc` (the caller reports the transaction's own error).
    func abandon(_ claim: UploadClaim, of hash: BlobHash) async {
        await releaseLease(on: hash, holder: claim.holder)
        guard claim.uploaded else { return }
        do {
            _ = try await deleteUnclaimedObject(hash)
        } catch {
            configuration.logger.warning("an uploaded object nothing references stays until gc removes it",
                                         metadata: ["blob": "\(hash)", "error": "\(error)"])
        }
    }

    /// Deletes the object of `hash` under a deletion claim, unless the catalog has a row for it
    /// or an ingest is uploading it; returns whether it was deleted.
    /// - Throws: ``Error/objectStore(_:)`` when the object store fails (the claim is released).
    func deleteUnclaimedObject(_ hash: BlobHash) async throws -> Bool {
        guard let objectStore = blobs.objectStore else { return false }
        let holder = "gc-" + UUID().uuidString.lowercased()
        let expiry = Date().addingTimeInterval(Self.deletionLease)
        guard try await catalog.write({ db in try BlobLease.claimDeletion(hash, holder: holder, until: expiry, in: db) }) else {
            return false
        }
        do {
            try await objectStore.delete(hash)
        } catch {
            await releaseLease(on: hash, holder: holder)
            throw Self.objectStoreError(error, operation: "delete blob \(hash.short)", location: objectStore.location)
        }
        await releaseLease(on: hash, holder: holder)
        return true
    }

    /// Ends a claim; a failure is logged, not thrown: an unreleased claim expires on its own.
    func releaseLease(on hash: BlobHash, holder: String) async {
        do {
            try await catalog.write { db in try BlobLease.release(hash, holder: holder, in: db) }
        } catch {
            configuration.logger.warning("a blob claim could not be released; it expires on its own",
                                         metadata: ["blob": "\(hash)", "error": "\(error)"])
        }
    }

    /// Downloads the object of `hash` into `cache/blobs/`, checking that it hashes to its name
    /// before it can be read, and returns the path.
    /// - Throws: ``Error/blobMissing(_:)`` when the object store has no such object,
    ///   ``Error/hashMismatch(expected:actual:)`` when its bytes are not the blob's,
    ///   ``Error/objectStore(_:)`` when the object store fails.
    func downloadFromObjectStore(_ hash: BlobHash, to path: String) async throws -> String {
        guard let objectStore = blobs.objectStore else { throw Error.blobMissing(hash) }
        let folder = String(path[..<path.lastIndex(of: "/")!])
        let partial = path + ".part-" + UUID().uuidString.prefix(8)
        try await BlockingPool.run {
            do throws(SystemError) {
                try POSIXFile.makeDirectories(folder)
            } catch {
                throw Error.writeFailed(path: folder, reason: error.reason)
            }
        }
        do {
            try await objectStore.download(hash, toFile: partial)
            try await BlockingPool.run {
                let (actual, _) = try BlobFileScan.hash(fileAt: partial)
                guard actual == hash else { throw Error.hashMismatch(expected: hash, actual: actual) }
                guard rename(partial, path) == 0 else { throw Error.writeFailed(path: path, reason: SystemError("rename").reason) }
            }
            return path
        } catch {
            do {
                try await BlockingPool.run { try POSIXFile.remove(partial) }
            } catch let cleanup {
                configuration.logger.warning("a partial download stays in cache/ (derived data, safe to delete)",
                                             metadata: ["path": "\(partial)", "error": "\(cleanup)"])
            }
            if case BlobObjectStoreError.missing = error { throw Error.blobMissing(hash) }
            throw Self.objectStoreError(error, operation: "download blob \(hash.short)", location: objectStore.location)
        }
    }

    /// A store error for what an object store threw; store errors pass through.
    static func objectStoreError(_ error: any Swift.Error, operation: String, location: String) -> any Swift.Error {
        switch error {
        case let error as Error: error
        case let error as BlobObjectStoreError: Error.objectStore(error)
        case let error as CancellationError: error
        default: Error.objectStore(.unavailable(operation: operation, location: location, reason: String(describing: error)))
        }
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
