import Foundation

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
