/// How much disk a store may use for bytes it can get again, kept in the store's settings.
///
/// ``maxLocalBytes`` bounds the originals on this machine: for a store whose originals are files
/// in the store folder, the least recently read ones that a peer holds are *evicted* (their
/// records and thumbnails stay; reading one fetches it again); for a store whose originals are
/// in an object store, the local copies in `cache/blobs/` are trimmed. The only copy of
/// anything is never evicted. ``maxThumbnailCacheBytes`` bounds the thumbnail disk cache, least
/// recently read first. `nil` means no limit.
public struct StorageBudget: Sendable, Codable, Equatable {
    /// The most bytes of originals (or local copies of them) kept on this machine.
    public var maxLocalBytes: Int64?
    /// The most bytes the thumbnail disk cache may hold.
    public var maxThumbnailCacheBytes: Int64?

    /// A budget; `nil` leaves that part unbounded.
    public init(maxLocalBytes: Int64? = nil, maxThumbnailCacheBytes: Int64? = nil) {
        self.maxLocalBytes = maxLocalBytes
        self.maxThumbnailCacheBytes = maxThumbnailCacheBytes
    }
}

/// What one enforcement of the ``StorageBudget`` did.
public struct EvictionReport: Sendable, Codable, Equatable {
    /// Originals (or, for an object-store store, local copies) on this machine before and after.
    public var localBytesBefore: Int64 = 0
    /// After enforcement.
    public var localBytesAfter: Int64 = 0
    /// Originals dropped because a peer holds them (their attachments are now `evicted`).
    public var originalsEvicted = 0
    /// Their bytes.
    public var bytesEvicted: Int64 = 0
    /// Originals over the budget kept because no peer answered that it holds them: the only copies.
    public var onlyCopiesKept = 0
    /// Originals over the budget kept because they were read within the grace period.
    public var recentlyReadKept = 0
    /// Local copies of object-store originals removed from `cache/blobs/`.
    public var localCopiesRemoved = 0
    /// Their bytes.
    public var localCopyBytesRemoved: Int64 = 0
    /// Playable copies of videos removed from `cache/renditions/` (before any original).
    public var playableVideosRemoved = 0
    /// Their bytes.
    public var playableVideoBytesRemoved: Int64 = 0
    /// Thumbnails removed from the disk cache.
    public var thumbnailsRemoved = 0
    /// Their bytes.
    public var thumbnailBytesRemoved: Int64 = 0
    /// Leftovers of cut peer transfers removed from `tmp/` (oldest first) because, with the
    /// originals, they went over `maxLocalBytes`.
    public var partialsRemoved = 0
    /// Their bytes.
    public var partialBytesRemoved: Int64 = 0
    /// Bytes of partial peer downloads left in `tmp/`, live and leftover (not in ``localBytesAfter``).
    public var partialBytes: Int64 = 0
}
