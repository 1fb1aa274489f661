import AttachmentStore
import AttachmentSync
import Foundation
import TestSupport

/// A new store that pulls from the peer listening on `port` (its bytes fetched from that peer
/// when asked for), for tests of what sync brings: it syncs every 200 ms until `arrived` holds
/// or 60 s pass, then stops.
enum SyncingStore {
    /// The store and the folder holding it (keep the folder alive as long as the store).
    static func pulling(fromPort port: Int, label: String, fetchMode: FetchMode = .onDemand,
                        until arrived: @Sendable (AttachmentStore) async -> Bool) async throws -> (AttachmentStore, TemporaryDirectory) {
        guard let peerURL = URL(string: "http://127.0.0.1:\(port)") else { throw URLError(.badURL) }
        let local = try TemporaryDirectory(label)
        let peers = [Peer(url: peerURL)]
        let fetcher = BlobFetcher(peers: peers)
        var configuration = AttachmentStore.Configuration()
        configuration.remoteBlobSource = fetcher
        let store = try await AttachmentStore.create(at: local.appending("store"), configuration: configuration)
        var sync = PeerSyncService.Configuration(peers: peers)
        sync.interval = .milliseconds(200)
        sync.fetchMode = fetchMode
        let service = PeerSyncService(store: store, fetcher: fetcher, configuration: sync)
        let syncing = Task { try await service.run() }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !(await arrived(store)) {
            try await Task.sleep(for: .milliseconds(100))
        }
        syncing.cancel()
        _ = await syncing.result
        return (store, local)
    }
}
