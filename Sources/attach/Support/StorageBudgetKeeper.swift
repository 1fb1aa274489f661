import ArgumentParser
import AttachmentStore
import AttachmentSync

/// Keeps a command that adds local bytes (`fetch`, `import`, `restore`) within the store's
/// storage budget as it goes, as `serve` keeps it: whenever the originals here pass
/// `--max-local-bytes`, the least recently read ones that a peer provably holds are evicted
/// (``AttachmentStore/enforceStorageBudget()``), and fetched again when read. The only copy of
/// anything stays, whatever the budget; what could not be made to fit is said at the end.
///
/// The store must be opened with ``open(_:peers:tokenOption:http:base:requirePeers:)``: the
/// peers are the holders an eviction must find, and a one-shot command hands no file to a
/// reader, so nothing it has needs the eviction grace a server gives the files it serves.
struct StorageBudgetKeeper {
    let store: AttachmentStore
    private let limit: Int64?
    private var localBytes: Int64 = 0
    private var evicted = 0
    private var evictedBytes: Int64 = 0
    private var onlyCopies = 0

    /// Opens the store for a command that adds local bytes, with a fetcher over `peers` (when
    /// none is named, the peers the store has pulled from) as the holders an eviction must find;
    /// the fetcher also fetches, for `fetch`. The caller shuts `http` down.
    /// - Throws: a ``ValidationError`` when `requirePeers` and there is no peer.
    static func open(_ storeOptions: StoreOptions, peers: [String], tokenOption: PeerTokenOption, http: PeerHTTPClient,
                     base: AttachmentStore.Configuration = AttachmentStore.Configuration(),
                     requirePeers: Bool = false) async throws -> (AttachmentStore, BlobFetcher) {
        // The fetcher's peers are set once the store can name the ones it has pulled from.
        let fetcher = BlobFetcher(peers: [], http: http.http)
        var configuration = base
        configuration.remoteBlobSource = fetcher
        configuration.evictionGrace = 0
        let store = try await storeOptions.open(configuration: configuration)
        let urls = peers.isEmpty && tokenOption.peersFile == nil ? try await store.knownPeers() : peers
        let resolved = try tokenOption.peers(urls)
        if requirePeers, resolved.isEmpty { throw ValidationError("this store has no peer yet: give --peer URL") }
        fetcher.setPeers(resolved)
        return (store, fetcher)
    }

    /// Reads the budget and brings the store within it before anything is added.
    init(store: AttachmentStore) async throws {
        self.store = store
        limit = try await store.storageBudget().maxLocalBytes
        if limit != nil { try await enforce() }
    }

    /// Records `bytes` more of originals here, and evicts when they pass the budget.
    mutating func added(_ bytes: Int64) async throws {
        guard let limit else { return }
        localBytes += bytes
        if localBytes > limit { try await enforce() }
    }

    private mutating func enforce() async throws {
        let report = try await store.enforceStorageBudget()
        localBytes = report.localBytesAfter
        evicted += report.originalsEvicted
        evictedBytes += report.bytesEvicted
        onlyCopies = report.onlyCopiesKept
    }

    /// What keeping the budget did, for the command's output: `nil` without a budget.
    var summary: String? {
        guard let limit else { return nil }
        var text = "storage budget \(Formatting.bytes(limit)): \(Formatting.bytes(localBytes)) of originals here"
        if evicted > 0 { text += "; \(evicted) evicted (\(Formatting.bytes(evictedBytes))), each held by a peer and fetched again when read" }
        if localBytes > limit {
            text += "; \(Formatting.bytes(localBytes - limit)) over, kept because \(onlyCopies) original\(onlyCopies == 1 ? " is" : "s are") "
                + "held by no peer that answered (the only copies stay)"
        }
        return text
    }
}
