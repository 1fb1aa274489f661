import Foundation
import GRDB

extension AttachmentStore {
    /// Stores image bytes under `key`, replacing what was there, durably and atomically.
    ///
    /// A small key-value convenience on the same machinery as attachments: the bytes become a
    /// content-addressed blob, the key a catalog row, and the bytes also go to a memory cache.
    /// - Throws: ``Error/writeFailed(path:reason:)`` and catalog errors; on error the previous
    ///   value stays.
    public func setImage(_ data: Data, forKey key: String) async throws {
        let blob = try await ingest(.data(data))
        try await committing(blob) { db in
            try self.commit(blob, in: db)
            try ImageEntryRecord(key: key, blobHash: blob.staged.hash.rawValue, mediaType: blob.mediaType, updatedAt: Date())
                .upsert(db)
        }
        imageCache.setValue(data, forKey: key, cost: data.count)
    }

    /// The image bytes stored under `key`, from memory when cached, else from disk; `nil` when
    /// there is none.
    /// - Throws: ``Error/blobMissing(_:)`` when the catalog knows the key but its bytes are gone.
    public func image(forKey key: String) async throws -> Data? {
        if let cached = imageCache.value(forKey: key) { return cached }
        guard let entry = try await catalog.read({ db in try ImageEntryRecord.fetchOne(db, key: key) }) else { return nil }
        let hash = BlobHash(trusted: entry.blobHash)
        let path = try await localPath(for: hash)
        let data = try await BlockingPool.run {
            guard let data = FileManager.default.contents(atPath: path) else { throw Error.blobMissing(hash) }
            return data
        }
        imageCache.setValue(data, forKey: key, cost: data.count)
        return data
    }

    /// Removes the image stored under `key` from memory and disk. Removing a missing key is not
    /// an error. The bytes stay on disk only while an attachment or another key shares them.
    /// - Throws: ``Error/writeFailed(path:reason:)`` when the file cannot be removed (the key is
    ///   then still there), and catalog errors.
    public func deleteImage(forKey key: String) async throws {
        imageCache.removeValue(forKey: key)
        let blobs = self.blobs
        try await catalog.write { db in
            guard let entry = try ImageEntryRecord.fetchOne(db, key: key) else { return }
            try entry.delete(db)
            if try !BlobRecord.isReferenced(entry.blobHash, in: db) {
                // Inside the write transaction, so no ingest can start referencing it meanwhile.
                try blobs.remove(BlobHash(trusted: entry.blobHash))
                _ = try BlobRecord.deleteOne(db, key: entry.blobHash)
            }
        }
    }
}
