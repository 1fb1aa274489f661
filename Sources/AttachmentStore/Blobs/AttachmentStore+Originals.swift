import Foundation
import Imaging

extension AttachmentStore {
    /// The original bytes of an attachment, exactly as they were added.
    ///
    /// ```swift
    /// let content = try await store.original(of: id)
    /// try await content.write(to: URL(filePath: "copy.jpg"))
    /// ```
    /// - Throws: ``Error/attachmentNotFound(_:)``; ``Error/notAvailableLocally(_:)`` when only the
    ///   record is here and the bytes are on a peer.
    public func original(of id: AttachmentID) async throws -> AttachmentContent {
        var attachment = try await attachment(id)
        if attachment.availability == .remote {
            try await ensureLocal(attachment)
            attachment = try await self.attachment(id)
        }
        return AttachmentContent(attachment: attachment, fileURL: URL(filePath: try await backend.localFile(for: attachment.blobHash)))
    }

    /// The clip of a Live Photo, its second original, exactly as it was added (the still is
    /// ``original(of:)``). A clip whose bytes are on a peer is fetched first.
    /// - Throws: ``Error/attachmentNotFound(_:)``, ``Error/notALivePhoto(_:)`` for an attachment
    ///   without a clip, ``Error/notAvailableLocally(_:)`` when the clip is on a peer that
    ///   cannot be reached.
    public func motionOriginal(of id: AttachmentID) async throws -> AttachmentContent {
        var attachment = try await attachment(id)
        guard var motion = attachment.motion else { throw Error.notALivePhoto(id) }
        if motion.state != .present {
            try await fetchOriginal(motion.blobHash, byteCount: motion.byteCount, of: id)
            attachment = try await self.attachment(id)
            guard let fetched = attachment.motion else { throw Error.notALivePhoto(id) }
            motion = fetched
        }
        return AttachmentContent(attachment: attachment, motion: motion, fileURL: URL(filePath: try await backend.localFile(for: motion.blobHash)))
    }

    /// The original bytes as chunks that report progress, for loads a person watches.
    ///
    /// ```swift
    /// for try await chunk in try await store.originalStream(for: id) {
    ///     progressView.value = chunk.fraction
    /// }
    /// ```
    /// - Throws: as ``original(of:)``; iteration throws `CancellationError` when cancelled.
    public func originalStream(for id: AttachmentID, chunkSize: Int = 256 << 10) async throws -> OriginalStream {
        let content = try await original(of: id)
        return OriginalStream(chunks: content.chunks(chunkSize: chunkSize), total: content.byteCount)
    }
}

extension AttachmentStore {
    /// What the photo's own EXIF says about when and with what it was taken (read from its
    /// header; no pixel is decoded), or when a video was recorded (its container's creation
    /// date, read by ffprobe). Empty for a file that is not a picture, says nothing, or whose
    /// bytes are not here (they are not fetched for this).
    /// - Throws: ``Error/attachmentNotFound(_:)``.
    public func captureFacts(of id: AttachmentID) async throws -> CaptureFacts {
        let attachment = try await attachment(id)
        guard attachment.image != nil, attachment.availability == .local else { return CaptureFacts() }
        let path = try await backend.localFile(for: attachment.blobHash)
        if MediaTypeSniffer.isVideo(attachment.mediaType) {
            let tools = videoTools
            let header = try? await BlockingPool.run { try VideoProbe.header(ofFileAt: path, tools: tools) }
            return CaptureFacts(capturedAt: header?.capturedAt)
        }
        return try await BlockingPool.run { try ImageProbe.captureFacts(ofFileAt: path) }
    }

    /// ffprobe and ffmpeg as this store runs them.
    var videoTools: VideoTools { configuration.videos.tools }
    /// pdfinfo and pdftoppm as this store runs them.
    var documentTools: DocumentTools { configuration.thumbnails.documentTools }
}
