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
        let attachment = try await attachment(id)
        guard attachment.availability == .local else { throw Error.notAvailableLocally(id) }
        return AttachmentContent(attachment: attachment, fileURL: URL(filePath: blobs.path(for: attachment.blobHash)))
    }
}
