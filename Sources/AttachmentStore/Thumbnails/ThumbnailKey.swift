/// What identifies one thumbnail: the content it shows and the size it was made at.
///
/// Output settings and the pipeline version are part of the disk cache's path, so a change
/// to either can never serve a stale file. A new image has a new hash, so replacing an
/// attachment's data can never serve the old picture either.
///
/// A thumbnail a peer made is a different key (``peerCopyOf`` names the attachment it was
/// fetched for): it never stands in for this store's own render, nor for another attachment
/// with the same content that came from another peer.
struct ThumbnailKey: Hashable, Sendable {
    let hash: BlobHash
    let size: Int
    /// For a peer's provisional thumbnail: the attachment it was fetched for; `nil` for ours.
    var peerCopyOf: AttachmentID? = nil
}
