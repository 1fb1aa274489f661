/// What a peer-syncing store fetches ahead of need, besides records.
public enum FetchMode: String, Sendable, CaseIterable, Codable {
    /// Nothing: bytes move only when someone asks for a thumbnail or an original.
    case onDemand = "on-demand"
    /// The peers' 200 px thumbnails (kilobytes), for stores that mostly look; originals on demand.
    case thumbnails
    /// Every original, in the background after each round.
    case originals
}
