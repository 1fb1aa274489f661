/// Counts and sizes of a store, as `attach stats` shows them.
public struct StoreStatistics: Sendable, Codable, Equatable {
    /// Notes.
    public var notes = 0
    /// Attachments.
    public var attachments = 0
    /// Keys in the key-value image store.
    public var imageKeys = 0
    /// Distinct blobs whose bytes are here.
    public var blobs = 0
    /// Distinct blobs known only as records (bytes on a peer).
    public var remoteBlobs = 0
    /// Distinct blobs dropped here under the storage budget (a peer holds them).
    public var evictedBlobs = 0
    /// Distinct blobs quarantined after failing a re-hash, waiting for a peer's copy.
    public var damagedBlobs = 0
    /// Blobs ever found damaged by a scrub or `verify --repair`.
    public var scrubDamageFound = 0
    /// Damaged blobs ever repaired from a peer's copy.
    public var scrubRepaired = 0
    /// The storage budget in the store's settings.
    public var budget = StorageBudget()
    /// Bytes of all attachments and image keys, counting shared content once per reference.
    public var referencedBytes: Int64 = 0
    /// Bytes of the distinct blobs stored here.
    public var blobBytes: Int64 = 0
    /// What content addressing saved: referenced bytes minus the distinct bytes they share.
    public var bytesSavedByDeduplication: Int64 = 0
    /// Everything in the store folder as the filesystem allocates it (like `du`).
    public var bytesOnDisk: Int64 = 0
    /// Of that, the originals under `blobs/`.
    public var originalsOnDisk: Int64 = 0
    /// Of that, the catalog file with its journal (SQLite; 0 for a catalog elsewhere).
    public var catalogOnDisk: Int64 = 0
    /// Files in the thumbnail disk cache (derived, safe to delete).
    public var thumbnailCacheFiles = 0
    /// Of the bytes on disk, the thumbnail disk cache.
    public var thumbnailCacheOnDisk: Int64 = 0
    /// Playable copies of videos kept in `cache/renditions/` (derived, safe to delete).
    public var playableVideoFiles = 0
    /// Of the bytes on disk, the playable copies of videos.
    public var playableVideosOnDisk: Int64 = 0
    /// Of the bytes on disk, local copies of originals kept in an object store (`cache/blobs/`, derived).
    public var originalCopiesOnDisk: Int64 = 0
    /// Of the bytes on disk, damaged originals kept in `quarantine/` until repaired.
    public var quarantineOnDisk: Int64 = 0
}
