import Synchronization

/// Blob bytes this server has served to peers, for `/sync/status` and `/metrics`.
final class SyncCounters: Sendable {
    private let served = Atomic<Int64>(0)

    /// Counts bytes sent (or being sent) from `/blobs/sha256/...`.
    func served(_ bytes: Int64) { served.add(bytes, ordering: .relaxed) }

    /// Bytes served since start.
    var blobBytesServed: Int64 { served.load(ordering: .relaxed) }
}
