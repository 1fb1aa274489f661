/// What a peer-syncing store fetches ahead of need, besides records.
public enum FetchMode: String, Sendable, CaseIterable, Codable {
    /// Nothing: bytes move only when someone asks for a thumbnail or an original.
    case onDemand = "on-demand"
    /// 200 px thumbnails (kilobytes), for stores that mostly look; originals on demand. Each is
    /// asked of the peer its record came from, by content hash (the sync scope is enough), and
    /// is provisional: shown until the verified original arrives, then replaced by our own.
    case thumbnails
    /// Every original, in the background after each round.
    case originals
}
