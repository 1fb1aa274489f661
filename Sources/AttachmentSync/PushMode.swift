/// What a peer-syncing server pushes to its peers, besides pulling from them.
public enum PushMode: String, Sendable, CaseIterable, Codable {
    /// Nothing: the peers pull (each must be able to reach this server).
    case off
    /// Its changes, as they are made: a peer that cannot reach this server still learns of
    /// them (the bytes stay here until a peer that can reach it fetches them).
    case records
    /// Its changes and the bytes of the originals the peer lacks, as a device does: for a server
    /// its peers cannot reach at all (behind NAT), so that they can show everything.
    case originals
}
