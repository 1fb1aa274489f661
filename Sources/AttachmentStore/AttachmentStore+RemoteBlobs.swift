import Foundation
import CatalogSQL

/// Brings the bytes of remote blobs to this store; implemented by the sync module over HTTP.
///
/// The store calls it when someone asks for the thumbnail or the original of an attachment
/// whose bytes are on a peer. Implementations coalesce concurrent requests for one blob and
/// must be safe to call from any task.
public protocol RemoteBlobSource: Sendable {
    /// Makes the bytes of `hash` present in `store`, or throws why they could not be fetched.
    func fetch(_ hash: BlobHash, byteCount: Int64, into store: AttachmentStore) async throws

    /// Names a source (a peer) that holds the bytes of `hash`, with `byteCount` bytes, right
    /// now, or `nil` when none does. The storage budget evicts an original only when this
    /// names someone, so an implementation must answer only for what it has asked about.
    func holder(of hash: BlobHash, byteCount: Int64) async -> String?
}

extension RemoteBlobSource {
    /// No holder: a source that cannot tell never lets the budget evict anything.
    public func holder(of hash: BlobHash, byteCount: Int64) async -> String? { nil }
}

extension AttachmentStore {
    /// Starts (or resumes) receiving the bytes of a remote blob.
    /// - Throws: ``Error/writeFailed(path:reason:)`` when another download of it is running.
    public func blobDownload(for hash: BlobHash, byteCount: Int64) async throws -> BlobDownload {
        try await BlockingPool.run { try BlobDownload(store: self, hash: hash, expectedSize: byteCount) }
    }

    /// Whether the bytes of `hash` are here.
    public func hasBlob(_ hash: BlobHash) async throws -> Bool {
        try await catalog.read { db in
            try BlobRecord.isPresent(hash.rawValue, in: db)
        }
    }

    /// The bytes of a blob as a file, for serving them to peers. A blob known here only as a
    /// record (or evicted, or quarantined as damaged) is first fetched from this store's own peers (so peers relay bytes for each
    /// other) when a remote blob source is configured.
    /// - Throws: ``Error/blobMissing(_:)`` when this store does not have them and cannot get them.
    public func blobFile(_ hash: BlobHash) async throws -> (url: URL, byteCount: Int64) {
        guard var record = try await catalog.read({ db in try BlobRecord.fetch(hash.rawValue, in: db) }) else {
            throw Error.blobMissing(hash)
        }
        if record.state != .present {
            guard let source = configuration.remoteBlobSource else { throw Error.blobMissing(hash) }
            try await source.fetch(hash, byteCount: record.byteCount, into: self)
            record.state = .present
        }
        return (URL(filePath: try await localPath(for: hash)), record.byteCount)
    }

    /// Installs verified downloaded bytes and marks the blob present. The bytes are sniffed
    /// (and probed, for raster images) like an upload's, and every attachment of the blob takes
    /// that media type and image header: a peer's claim about its bytes is never what we serve.
    func installDownloaded(_ staged: StagedBlob) async throws {
        let blob = try await BlockingPool.run { IngestedBlob(staged: staged) }
        let repaired = try await committing(blob) { db -> Bool in
            let wasDamaged = try BlobRecord.fetch(blob.staged.hash.rawValue, in: db)?.state == .damaged
            if wasDamaged { try StoreSetting.increment(ScrubCounter.repaired, in: db) }
            try self.commit(blob, in: db)
            _ = try db.execute("UPDATE attachment SET mediaType = ?, width = ?, height = ?, orientation = ? WHERE blobHash = ?", [
                .text(blob.mediaType), blob.image.map { .integer(Int64($0.width)) } ?? .null,
                blob.image.map { .integer(Int64($0.height)) } ?? .null, blob.image.map { .integer(Int64($0.orientation)) } ?? .null,
                .text(blob.staged.hash.rawValue),
            ])
            return wasDamaged
        }
        if repaired { await releaseQuarantined(blob.staged.hash) }
    }

    /// Fetches the bytes of a remote attachment through the configured source, or explains
    /// that they are not here.
    func ensureLocal(_ attachment: Attachment) async throws {
        guard attachment.availability == .remote else { return }
        guard let source = configuration.remoteBlobSource else { throw Error.notAvailableLocally(attachment.id) }
        try await source.fetch(attachment.blobHash, byteCount: attachment.byteCount, into: self)
    }
}
