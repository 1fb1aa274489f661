import CatalogSQL
import Foundation
import Imaging

/// A staged blob plus what was learned about it: its sniffed media type and, for pictures,
/// their size and orientation.
struct IngestedBlob: Sendable {
    let staged: StagedBlob
    let mediaType: String
    /// An image's header, or a video's frame size and rotation (as an EXIF orientation).
    let image: Attachment.ImageInfo?
    /// The Live Photo identifier a still's EXIF or a clip's QuickTime tags carry.
    let contentIdentifier: String?

    /// Sniffs and probes a staged blob: raster images through libvips' header, videos through
    /// ffprobe and PDFs through pdfinfo (limited child processes). Blocks.
    init(staged: StagedBlob, videoTools: VideoTools, documentTools: DocumentTools) {
        self.staged = staged
        let sniffed = MediaTypeSniffer.mediaType(of: staged.head)
        if MediaTypeSniffer.isReadableRaster(sniffed), let header = try? ImageProbe.header(ofFileAt: staged.temporaryPath) {
            // libvips knows HEIF brands better than a four-byte sniff does.
            self.mediaType = header.format.mediaType
            self.image = Attachment.ImageInfo(width: header.width, height: header.height, orientation: header.orientation,
                                              embeddedVideoOffset: header.embeddedVideoOffset.map { Int($0) })
            self.contentIdentifier = header.contentIdentifier
        } else if MediaTypeSniffer.isVideo(sniffed), let header = try? VideoProbe.header(ofFileAt: staged.temporaryPath, tools: videoTools) {
            self.mediaType = sniffed
            self.image = Attachment.ImageInfo(width: header.width, height: header.height, orientation: header.orientation,
                                              durationMilliseconds: header.duration.map { Int(($0 * 1000).rounded()) })
            self.contentIdentifier = header.contentIdentifier
        } else if MediaTypeSniffer.isDocument(sniffed),
                  let header = try? DocumentProbe.header(ofFileAt: staged.temporaryPath, tools: documentTools) {
            self.mediaType = sniffed
            self.image = Attachment.ImageInfo(width: header.width, height: header.height, orientation: 1, pageCount: header.pageCount)
            self.contentIdentifier = nil
        } else {
            self.mediaType = sniffed
            self.image = nil
            self.contentIdentifier = nil
        }
    }
}

/// What an attachment's row records of its original: the same whether its bytes just arrived
/// (``IngestedBlob/facts``) or the store already held them (``AttachmentRecord/heldOriginal(_:in:)``).
struct OriginalFacts: Sendable {
    var hash: BlobHash
    var byteCount: Int64
    var mediaType: String
    var image: Attachment.ImageInfo?
    /// The Live Photo identifier the bytes carry, if any.
    var contentIdentifier: String? = nil
}

extension IngestedBlob {
    /// What the new attachment's row records of these bytes.
    var facts: OriginalFacts {
        OriginalFacts(hash: staged.hash, byteCount: staged.byteCount, mediaType: mediaType, image: image, contentIdentifier: contentIdentifier)
    }
}

/// Where the bytes of a new attachment come from.
enum IngestSource: Sendable {
    /// A file; its copy is synced at once unless `syncing` is false (a batch syncs all at once).
    case file(URL, syncing: Bool = true, progress: (@Sendable (Int64) -> Void)?)
    case data(Data)
}

extension AttachmentStore {
    /// Streams `source` into `tmp/`, hashes, syncs, sniffs and probes it; nothing is referenced yet.
    func ingest(_ source: IngestSource) async throws -> IngestedBlob {
        let (blobs, videoTools, documentTools) = (self.blobs, self.videoTools, self.documentTools)
        return try await CancellationFlag.runCancellable { flag in
            let staged: StagedBlob
            switch source {
            case .file(let url, let syncing, let progress):
                staged = try blobs.stage(fileAt: url.path(percentEncoded: false), cancellation: flag, syncing: syncing, progress: progress)
            case .data(let data): staged = try blobs.stage(data: data)
            }
            return IngestedBlob(staged: staged, videoTools: videoTools, documentTools: documentTools)
        }
    }

    /// Streams an async sequence of chunks into `tmp/`, then sniffs and probes it; the copy is
    /// synced at once unless `syncing` is false (a batch syncs all its copies together).
    func ingest<Bytes: AsyncSequence>(bytes: Bytes, syncing: Bool = true) async throws -> IngestedBlob where Bytes.Element: DataProtocol {
        let staged = try await blobs.stage(bytes: bytes, syncing: syncing)
        let (videoTools, documentTools) = (self.videoTools, self.documentTools)
        return try await BlockingPool.run { IngestedBlob(staged: staged, videoTools: videoTools, documentTools: documentTools) }
    }

    /// Runs `body` in a catalog write transaction, then drops the staged copy whatever happened.
    /// `body` calls ``commit(_:in:)`` to install and reference the blob. With `note`, the
    /// transaction is keyed (``Catalog/write(locking:_:)``) by that note and the blob, and
    /// `body` may change only them; without, it is a plain write.
    /// Where the backend uploads first (an object store), that happens under a claim that keeps
    /// any `gc` from deleting the object until this transaction references it; if the
    /// transaction fails, the backend undoes the upload.
    func committing<T: Sendable>(
        _ blob: IngestedBlob, into note: NoteID? = nil, _ body: @escaping @Sendable (any SQLTransaction) throws -> T
    ) async throws -> T {
        let result: Result<T, Swift.Error>
        let locks = note.map { [CatalogLock.note($0), .blob(blob.staged.hash)] }
        do {
            if let uploading = backend as? any UploadingBlobBackend {
                result = .success(try await uploading.committing(blob.staged, locks: locks, body))
            } else {
                result = .success(try await catalog.write(lockingIfAny: locks, body))
            }
        } catch {
            result = .failure(error)
        }
        try? await BlockingPool.run { blob.staged.release() }
        return try result.get()
    }

    /// Installs the blob and records it as present. Call inside a catalog write transaction.
    func commit(_ blob: IngestedBlob, in db: any SQLTransaction) throws {
        _ = try backend.install(blob.staged, in: db)
        try BlobRecord.markPresent(blob.staged.hash, byteCount: blob.staged.byteCount, in: db)
    }
}
