/// What identifies one thumbnail: the content it shows and the size it was made at.
///
/// Output settings and the pipeline version are part of the disk cache's path, so a change
/// to either can never serve a stale file. A new image has a new hash, so replacing an
/// attachment's data can never serve the old picture either.
struct ThumbnailKey: Hashable, Sendable {
    let hash: BlobHash
    let size: Int
}
