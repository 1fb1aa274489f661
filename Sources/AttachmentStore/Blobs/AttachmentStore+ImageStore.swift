import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Stores image bytes under `key`, replacing what was there, durably and atomically.
    ///
    /// A small key-value convenience on the same machinery as attachments: the bytes become a
    /// content-addressed blob, the key a catalog row, and the bytes also go to a memory cache.
    /// - Throws: ``Error/writeFailed(path:cause:)`` and catalog errors; on error the previous
    ///   value stays.
    public func setImage(_ data: Data, forKey key: String) async throws {
        let blob = try await ingest(.data(data))
        try await committing(blob) { db in
            try self.commit(blob, in: db)
            try ImageEntryRecord(key: key, blobHash: blob.staged.hash.rawValue, mediaType: blob.mediaType, updatedAt: Date())
                .save(db)
        }
        imageCache.setValue(data, forKey: key, cost: data.count)
    }

    /// The image bytes stored under `key`, from memory when cached, else from disk; `nil` when
    /// there is none.
    /// - Throws: ``Error/blobMissing(_:)`` when the catalog knows the key but its bytes are gone.
    public func image(forKey key: String) async throws -> Data? {
        if let cached = imageCache.value(forKey: key) { return cached }
        guard let entry = try await catalog.read({ db in try ImageEntryRecord.fetch(key, in: db) }) else { return nil }
        let hash = try entry.validatedHash
        let path = try await backend.localFile(for: hash)
        let data = try await BlockingPool.run {
            guard let data = POSIXFile.contents(of: path) else { throw Error.blobMissing(hash) }
            return data
        }
        imageCache.setValue(data, forKey: key, cost: data.count)
        return data
    }

    /// Removes the image stored under `key` from memory and disk. Removing a missing key is not
    /// an error. The bytes stay on disk only while an attachment or another key shares them.
    /// - Throws: ``Error/writeFailed(path:cause:)`` when the file cannot be removed (the key is
    ///   then still there), and catalog errors.
    public func deleteImage(forKey key: String) async throws {
        imageCache.removeValue(forKey: key)
        let backend = self.backend
        let orphaned = try await catalog.write { db -> BlobHash? in
            guard let entry = try ImageEntryRecord.fetch(key, in: db) else { return nil }
            let hash = try entry.validatedHash
            try ImageEntryRecord.delete(key, in: db)
            guard try !BlobRecord.isReferenced(entry.blobHash, in: db) else { return nil }
            // Inside the write transaction, so no ingest can start referencing it meanwhile.
            try backend.remove(hash)
            try BlobRecord.delete(entry.blobHash, in: db)
            return hash
        }
        // An object store's object goes under a deletion claim, unless an ingest of the same
        // bytes is uploading it meanwhile (then that ingest's row keeps it, or a later gc takes it).
        if let orphaned, let uploading = backend as? any UploadingBlobBackend { try await uploading.removeStored(orphaned) }
    }
}
