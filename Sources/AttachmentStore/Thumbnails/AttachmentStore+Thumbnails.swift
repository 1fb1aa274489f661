import Foundation
import CatalogSQL
import Imaging

extension AttachmentStore {
    /// A downscaled, upright, metadata-free image of an attachment, made in the background: of
    /// an image, or of a video's poster frame (ffmpeg in a limited child process).
    ///
    /// Answered from memory, else from the disk cache, else rendered by libvips off the
    /// cooperative pool. Concurrent requests for the same picture and size share one render;
    /// when every requester has cancelled, the render is cancelled too.
    ///
    /// ```swift
    /// let thumbnail = try await store.thumbnail(for: photo.id)          // 200 px, JPEG
    /// ```
    /// - Parameters:
    ///   - id: the attachment.
    ///   - maxPixelSize: the longest side in pixels (default ``ThumbnailConfiguration/defaultSize``).
    ///   - priority: `.visible` requests go before `.prefetch` ones.
    /// - Throws: ``Error/notAnImage(_:)`` for attachments that are neither images nor videos,
    ///   ``Error/notAvailableLocally(_:)`` when the bytes are on a peer, ``Error/imageUnreadable(_:cause:)``,
    ///   ``Error/imageTooLarge(_:cause:)``, ``Error/invalidArgument(_:)`` for a size out of range.
    public func thumbnail(for id: AttachmentID, maxPixelSize: Int? = nil, priority: ThumbnailPriority = .visible) async throws -> Thumbnail {
        let size = maxPixelSize ?? configuration.thumbnails.defaultSize
        guard (1...configuration.thumbnails.maximumSize).contains(size) else {
            throw Error.invalidArgument("thumbnail size \(size) is outside 1...\(configuration.thumbnails.maximumSize)")
        }
        let attachment = try await attachment(id)
        guard MediaTypeSniffer.hasPicture(attachment.mediaType) else { throw Error.notAnImage(id) }
        let key = ThumbnailKey(hash: attachment.blobHash, size: size)
        if attachment.availability == .remote {
            // Our own render (the original was here once), else the provisional one the peer
            // this attachment came from made, saves fetching the original. Once the original
            // is here, only our own render is ever served.
            if let cached = await thumbnails.cached(key) { return cached }
            if let provisional = await thumbnails.cached(ThumbnailKey(hash: attachment.blobHash, size: size, peerCopyOf: attachment.id)) {
                return provisional
            }
            try await ensureLocal(attachment)
        }
        do {
            let path = try await backend.localFile(for: attachment.blobHash)
            // Bytes that just arrived come with the facts ffprobe found in them: read again then.
            let held = attachment.availability == .remote ? try await self.attachment(id) : attachment
            guard let source = ThumbnailSource(path: path, of: held) else { throw Error.notAnImage(id) }
            return try await thumbnails.thumbnail(for: key, source: source, priority: priority)
        } catch let error as ImagingError {
            throw Self.storeError(error, for: id)
        }
    }

    /// This store's own thumbnail of content `hash`, for a peer asking by content hash (with
    /// only the sync scope): made from an original held here, never fetched from this store's
    /// own peers, never a peer's provisional copy. The peer learns no attachment id.
    /// - Throws: ``Error/blobMissing(_:)`` when the original is not here (or no attachment
    ///   holds it); as ``thumbnail(for:maxPixelSize:priority:)`` otherwise.
    package func thumbnail(ofBlob hash: BlobHash, maxPixelSize size: Int) async throws -> Thumbnail {
        guard try await hasBlob(hash) else { throw Error.blobMissing(hash) }
        let holder = try await catalog.read { db in
            try AttachmentRecord.anyHolder(of: hash, in: db).map(AttachmentID.init(rawValue:))
        }
        guard let holder else { throw Error.blobMissing(hash) }
        let thumbnail = try await thumbnail(for: holder, maxPixelSize: size, priority: .visible)
        guard !thumbnail.isProvisional else { throw Error.blobMissing(hash) }
        return thumbnail
    }

    /// The image decoded and downscaled for a viewer (default 2048 px on the longest side),
    /// upright and without metadata; cached like thumbnails.
    /// - Throws: as ``thumbnail(for:maxPixelSize:priority:)``.
    public func displayImage(for id: AttachmentID, maxPixelSize: Int = 2048) async throws -> Thumbnail {
        try await thumbnail(for: id, maxPixelSize: maxPixelSize, priority: .visible)
    }

    /// Starts making an attachment's thumbnail in the background at low priority, unless it is
    /// cached, under way, not a picture, or not here. Returns at once.
    public func prefetchThumbnail(for attachment: Attachment, maxPixelSize: Int? = nil) {
        guard MediaTypeSniffer.hasPicture(attachment.mediaType), attachment.availability == .local else { return }
        let size = maxPixelSize ?? configuration.thumbnails.defaultSize
        let key = ThumbnailKey(hash: attachment.blobHash, size: size)
        // Catalog placement has no file until someone reads it; an object-store ingest has just
        // left its local copy in the cache.
        guard backend.hasFileBeforeFirstRead else { return }
        guard let source = ThumbnailSource(path: backend.readablePath(for: attachment.blobHash), of: attachment) else { return }
        thumbnails.prefetch(key, source: source)
    }

    /// Whether a thumbnail of the attachment at this size is cached (in memory or on disk):
    /// our own render, or a peer's provisional one of this attachment.
    package func hasCachedThumbnail(for attachment: Attachment, maxPixelSize: Int? = nil) async -> Bool {
        let key = ThumbnailKey(hash: attachment.blobHash, size: maxPixelSize ?? configuration.thumbnails.defaultSize)
        if await thumbnails.cached(key) != nil { return true }
        return await thumbnails.cached(ThumbnailKey(hash: key.hash, size: key.size, peerCopyOf: attachment.id)) != nil
    }

    /// The most bytes a peer's thumbnail may take; a larger one is refused unread.
    public static let maxPeerThumbnailBytes = 1 << 20

    /// Keeps a thumbnail a peer made of an attachment whose bytes are not here, so that
    /// showing it needs kilobytes instead of the original's megabytes.
    ///
    /// It is provisional: kept apart from this store's renders (under the attachment, so it
    /// never shows for another attachment with the same content), shown only while the
    /// original is remote, and dropped when the verified original arrives (our own render is
    /// made from it then). It is checked first: at most ``maxPeerThumbnailBytes``, an image
    /// of at most `maxPixelSize` on its longest side by its header, and then decoded whole and
    /// encoded again by this store's pipeline (so nothing of the peer's file but its pixels
    /// is kept). An attachment whose original is here already is left alone.
    /// - Throws: ``Error/imageUnreadable(_:cause:)`` or ``Error/imageTooLarge(_:cause:)``
    ///   when the bytes are not such an image.
    public func storeThumbnail(_ data: Data, for attachment: Attachment, maxPixelSize: Int? = nil) async throws {
        let size = maxPixelSize ?? configuration.thumbnails.defaultSize
        guard data.count <= Self.maxPeerThumbnailBytes else {
            throw Error.imageTooLarge(attachment.id, cause: .tooManyBytes(path: "the peer's thumbnail", bytes: Int64(data.count),
                                                                          limit: Int64(Self.maxPeerThumbnailBytes)))
        }
        guard try await self.attachment(attachment.id).availability == .remote else { return }
        let directory = layout.temporaryPath
        let file = try await BlockingPool.run { try PeerThumbnailFile.write(data, in: directory) }
        let probe = file.path
        defer { file.remove() }
        do {
            let header = try await BlockingPool.run { try ImageProbe.header(ofFileAt: probe) }
            guard max(header.width, header.height) <= size else {
                throw ImagingError.largerThanAllowed(path: probe, width: header.width, height: header.height, maxPixelSize: size)
            }
            // Decoded whole and encoded again by our own pipeline, under the peer's key.
            _ = try await thumbnails.thumbnail(for: ThumbnailKey(hash: attachment.blobHash, size: size, peerCopyOf: attachment.id),
                                               source: ThumbnailSource(imageAt: probe), priority: .prefetch)
        } catch let error as ImagingError {
            throw Self.storeError(error, for: attachment.id)
        }
        // The original may have arrived while it was being decoded: then it is not kept.
        if try await self.attachment(attachment.id).availability != .remote { await dropPeerThumbnails(of: attachment.blobHash) }
    }

    /// Drops the peers' provisional thumbnails of content `hash`, in memory and on disk: its
    /// verified original is here, and only this store's own render is shown from now on.
    func dropPeerThumbnails(of hash: BlobHash) async {
        thumbnails.memory.removeAll { $0.hash == hash && $0.peerCopyOf != nil }
        let disk = thumbnails.disk
        try? await BlockingPool.run { disk.removePeerCopies(of: hash) }
    }

    /// Waits until every thumbnail under way now, prefetches included, is done.
    public func waitForBackgroundWork() async {
        await thumbnails.drain()
    }

    /// Counters of the thumbnail pipeline since this store value was opened.
    public var thumbnailStatistics: ThumbnailStatistics { thumbnails.statistics }

    /// Files and bytes in the thumbnail disk cache.
    public func thumbnailCacheUsage() async throws -> (files: Int, bytes: Int64) {
        let disk = thumbnails.disk
        return try await BlockingPool.run { disk.usage() }
    }

    /// Empties the thumbnail caches, in memory and on disk. Thumbnails are derived data:
    /// they are made again when next asked for.
    public func clearThumbnailCache() async throws {
        thumbnails.memory.removeAll()
        let disk = thumbnails.disk
        do {
            try await BlockingPool.run { try disk.removeAll() }
        } catch {
            throw Error.writeFailed(path: disk.root, cause: .init(error, call: "remove"))
        }
    }

    /// Starts the default thumbnail of a freshly added image or video when configured to; returns the attachment.
    func prefetchingThumbnail(_ attachment: Attachment) -> Attachment {
        if configuration.thumbnails.generateAfterImport { prefetchThumbnail(for: attachment) }
        return attachment
    }

    /// The store error an imaging failure means for attachment `id`.
    static func storeError(_ error: ImagingError, for id: AttachmentID) -> Error {
        switch error {
        case .unsupportedFormat: .notAnImage(id)
        case .tooManyPixels, .tooManyBytes, .tooMuchMemory, .largerThanAllowed: .imageTooLarge(id, cause: error)
        case .unreadable, .libraryUnavailable, .cancelled: .imageUnreadable(id, cause: error)
        }
    }
}
