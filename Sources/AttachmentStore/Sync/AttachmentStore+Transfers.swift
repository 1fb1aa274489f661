import Foundation

extension AttachmentStore {
    /// `attachments` with ``Attachment/State/fetching`` (and the bytes so far) for those whose
    /// bytes are arriving from a peer right now, in this process or another.
    ///
    /// A transfer is seen on disk, not in the catalog: its partial file `tmp/fetch-<hash>.part`
    /// is locked for as long as a download holds it (see ``BlobDownload``), and a partial left
    /// by a cut transfer is unlocked, so it does not count.
    func withTransfersInFlight(_ attachments: [Attachment]) async throws -> [Attachment] {
        let waiting = Set(attachments.filter { $0.state != .present }.map(\.blobHash))
        guard !waiting.isEmpty else { return attachments }
        let folder = layout.temporaryPath
        let received = try await BlockingPool.run { () -> [BlobHash: Int64] in
            var found: [BlobHash: Int64] = [:]
            for hash in waiting {
                if let bytes = BlobDownload.bytesHeld(at: folder + "/" + BlobDownload.partialName(of: hash)) { found[hash] = bytes }
            }
            return found
        }
        return attachments.map { attachment in
            guard attachment.state != .present, let bytes = received[attachment.blobHash] else { return attachment }
            var fetching = attachment
            fetching.state = .fetching
            fetching.fetchedBytes = bytes
            return fetching
        }
    }
}
