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
    /// Bytes of all attachments and image keys, counting shared content once per reference.
    public var referencedBytes: Int64 = 0
    /// Bytes of the distinct blobs stored here.
    public var blobBytes: Int64 = 0
    /// What content addressing saved: referenced bytes minus the distinct bytes they share.
    public var bytesSavedByDeduplication: Int64 = 0
    /// Everything in the store folder as the filesystem allocates it (like `du`).
    public var bytesOnDisk: Int64 = 0
}
