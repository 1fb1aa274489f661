/// What a scrub (or `verify --repair`) found and did.
public struct ScrubReport: Sendable, Codable, Equatable {
    /// A damaged blob that could not be repaired this time, and why.
    public struct Unrepaired: Sendable, Codable, Equatable {
        /// The blob.
        public var hash: BlobHash
        /// Why no copy could be had (no peer holds it, every peer failed, …).
        public var reason: String
    }

    /// Blobs re-hashed.
    public var blobsChecked = 0
    /// Bytes re-hashed.
    public var bytesChecked: Int64 = 0
    /// Blobs found damaged and quarantined in this run.
    public var quarantined: [BlobHash] = []
    /// Damaged blobs repaired: a verified copy from a peer or the object store was put back.
    public var repaired: [BlobHash] = []
    /// Damaged blobs still quarantined.
    public var unrepaired: [Unrepaired] = []
    /// Whether every present blob has been checked since the scrub began (a pass ended).
    public var passFinished = false
}

/// The names of the scrub counters kept in the store's settings.
enum ScrubCounter {
    /// Blobs ever found damaged.
    static let found = "scrubDamageFound"
    /// Damaged blobs ever repaired.
    static let repaired = "scrubRepaired"
}
