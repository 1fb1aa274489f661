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
    /// names someone, so an implementation must answer only for a holder that gave back
    /// `sample` (bytes of the blob at an offset the store chose at random) when asked for them.
    func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String?
}

extension RemoteBlobSource {
    /// No holder: a source that cannot tell never lets the budget evict anything.
    public func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String? { nil }
}

/// A few bytes of a blob at an offset chosen at random: what a holder must give back to prove
/// it holds the blob (a peer that only claims to cannot know them).
public struct BlobSample: Sendable, Equatable {
    /// Where the bytes start.
    public var offset: Int64
    /// The bytes (at most 4 KiB).
    public var bytes: [UInt8]

    /// A sample.
    public init(offset: Int64, bytes: [UInt8]) {
        self.offset = offset
        self.bytes = bytes
    }

    /// Up to 4 KiB at a random offset of the file at `path`, which holds `byteCount` bytes. Blocks.
    static func random(ofFileAt path: String, byteCount: Int64) throws -> BlobSample {
        let length = Int(min(4096, byteCount))
        let offset = byteCount > Int64(length) ? Int64.random(in: 0...(byteCount - Int64(length))) : 0
        let handle = try FileHandle(forReadingFrom: URL(filePath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return BlobSample(offset: offset, bytes: [UInt8](try handle.read(upToCount: length) ?? Data()))
    }
}

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
        await dropPeerThumbnails(of: blob.staged.hash)
    }

    /// Fetches the bytes of a remote attachment through the configured source, or explains
    /// that they are not here.
    func ensureLocal(_ attachment: Attachment) async throws {
        guard attachment.availability == .remote else { return }
        guard let source = configuration.remoteBlobSource else { throw Error.notAvailableLocally(attachment.id) }
        try await source.fetch(attachment.blobHash, byteCount: attachment.byteCount, into: self)
    }
}
