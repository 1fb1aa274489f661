/// The copy of a video attachment a browser plays (H.264 and AAC in MP4, index at the front),
/// a file in the store's cache.
public struct PlayableVideo: Sendable, Equatable {
    /// The file.
    public var path: String
    /// Its size in bytes.
    public var byteCount: Int64
    /// The content hash of the original it was made from.
    public var originalHash: BlobHash
}
