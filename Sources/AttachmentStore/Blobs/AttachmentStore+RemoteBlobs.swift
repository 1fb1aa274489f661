import Foundation
import CatalogSQL

extension AttachmentStore {
    /// Whether the bytes of `hash` are here.
    package func hasBlob(_ hash: BlobHash) async throws -> Bool {
        try await catalog.read { db in
            try BlobRecord.isPresent(hash.rawValue, in: db)
        }
    }

    /// The bytes of a blob as a file, for serving them to peers. A blob known here only as a
    /// record (or evicted, or quarantined as damaged) is first fetched from this store's own peers (so peers relay bytes for each
    /// other) when a remote blob source is configured.
    /// - Throws: ``Error/blobMissing(_:)`` when this store does not have them and cannot get them.
    package func blobFile(_ hash: BlobHash) async throws -> (url: URL, byteCount: Int64) {
        guard var record = try await catalog.read({ db in try BlobRecord.fetch(hash.rawValue, in: db) }) else {
            throw Error.blobMissing(hash)
        }
        if record.state != .present {
            guard let source = configuration.remoteBlobSource else { throw Error.blobMissing(hash) }
            try await source.fetch(hash, byteCount: record.byteCount, into: self)
            record.state = .present
        }
        return (URL(filePath: try await backend.localFile(for: hash)), record.byteCount)
    }

    /// Installs verified downloaded bytes and marks the blob present. The bytes are sniffed
    /// (and probed, for pictures) like an upload's, and every attachment of the blob takes
    /// that media type and image header: a peer's claim about its bytes is never what we serve.
    func installDownloaded(_ staged: StagedBlob) async throws {
        let (videoTools, documentTools) = (self.videoTools, self.documentTools)
        let blob = try await BlockingPool.run { IngestedBlob(staged: staged, videoTools: videoTools, documentTools: documentTools) }
        let repaired = try await committing(blob) { db -> Bool in
            let wasDamaged = try BlobRecord.fetch(blob.staged.hash.rawValue, in: db)?.state == .damaged
            if wasDamaged { try StoreSetting.increment(ScrubCounter.repaired, in: db) }
            try self.commit(blob, in: db)
            try AttachmentRecord.setFacts(ofContent: blob.staged.hash, mediaType: blob.mediaType, image: blob.image, in: db)
            return wasDamaged
        }
        if repaired { await releaseQuarantined(blob.staged.hash) }
        await dropPeerThumbnails(of: blob.staged.hash)
    }

    /// Fetches the bytes of a remote attachment through the configured source, or explains
    /// that they are not here.
    func ensureLocal(_ attachment: Attachment) async throws {
        guard attachment.availability == .remote else { return }
        try await fetchOriginal(attachment.blobHash, byteCount: attachment.byteCount, of: attachment.id)
    }

    /// Fetches the bytes of `hash`, an original of the attachment `id` (its own, or a Live
    /// Photo's clip) known here only as a record, through the configured source.
    func fetchOriginal(_ hash: BlobHash, byteCount: Int64, of id: AttachmentID) async throws {
        guard let source = configuration.remoteBlobSource else { throw Error.notAvailableLocally(id) }
        try await source.fetch(hash, byteCount: byteCount, into: self)
    }
}
