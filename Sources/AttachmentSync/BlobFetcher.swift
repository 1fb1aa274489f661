import AsyncHTTPClient
import AsyncCoordination
import AttachmentStore
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import Synchronization

/// Fetches the bytes of remote blobs from peers: lazily, resumably, verified.
///
/// - One transfer per blob however many ask for it at once; it lives as long as someone
///   waits for it, and is cancelled when every waiter has gone.
/// - Bytes stream into `tmp/` and are hashed before they count; a transfer that is cut
///   resumes with `Range` from where it stopped, on the next attempt or the next peer.
/// - Peers are tried in order; one serving wrong bytes is named in the error and skipped.
///
/// Install it as the store's `remoteBlobSource`, and asking the store for a remote
/// attachment's thumbnail or original fetches its bytes first.
public final class BlobFetcher: RemoteBlobSource {
    private let peers: Mutex<[Peer]>
    private let http: HTTPClient
    private let logger: Logger
    /// The transfers under way, one per blob, with their progress.
    private let transfers = SingleFlight<BlobHash, Void, FetchEvent>()
    private let received = Mutex<Int64>(0)

    /// A fetcher asking `peers`, in order, over `http` (default: ``PeerHTTPClient/system``).
    public init(peers: [Peer], http: HTTPClient = PeerHTTPClient.system, logger: Logger = Logger(label: "attachment-sync.fetch")) {
        self.peers = Mutex(peers)
        self.http = http
        self.logger = logger
    }

    /// Replaces the list of peers asked.
    public func setPeers(_ newPeers: [Peer]) { peers.withLock { $0 = newPeers } }

    /// How far the transfer of `hash` has come, while one is under way.
    public func progress(for hash: BlobHash) -> (received: Int64, total: Int64)? {
        guard case .progress(let received, let total)? = transfers.lastProgress(of: hash) else { return nil }
        return (received, total)
    }

    /// Total blob bytes received from peers by this fetcher.
    public var bytesReceived: Int64 { received.withLock { $0 } }

    /// Makes the bytes of `hash` present in `store`, joining a transfer already under way.
    /// - Throws: ``SyncError`` naming the peers tried, or `CancellationError`.
    public func fetch(_ hash: BlobHash, byteCount: Int64, into store: AttachmentStore) async throws {
        try await transfers.value(of: join(hash, byteCount: byteCount, store: store), for: hash)
    }

    /// The events of fetching `hash`: progress, then completed or failed. Starts the fetch
    /// if needed; the fetch lives as long as the stream is iterated (or someone else waits).
    public func events(for hash: BlobHash, byteCount: Int64, into store: AttachmentStore) -> AsyncStream<FetchEvent> {
        AsyncStream { continuation in
            let watcher = UUID()
            let transfer = join(hash, byteCount: byteCount, store: store, watcher: (watcher, continuation))
            let forwarder = Task {
                do {
                    try await transfer.task.value
                    continuation.yield(.completed)
                } catch let error as SyncError {
                    continuation.yield(.failed(error))
                } catch let error as AttachmentStore.Error {
                    continuation.yield(.failed(.storeFailed(peer: nil, cause: error)))
                } catch {
                    // Cancelled before any peer answered: no peer's failure to name.
                    continuation.yield(.failed(.blobUnavailable(hash: hash, failures: [.peerUnreachable(peer: "(none asked)", reason: String(describing: error))])))
                }
                continuation.finish()
            }
            continuation.onTermination = { [weak self] termination in
                self?.transfers.unwatch(hash, watcher: watcher)
                if case .cancelled = termination {
                    forwarder.cancel()
                    self?.transfers.leave(hash, ticket: transfer.id)
                }
            }
        }
    }

    /// The first peer, in order, that answers that it holds the bytes of `hash` with that size
    /// and gives back `sample` when asked for that range (a `HEAD` with the size, then a ranged `GET`), or `nil` when none does. The store's storage budget
    /// evicts an original only when this names someone.
    public func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String? {
        for peer in peers.withLock({ $0 }) {
            if Task.isCancelled { return nil }
            if await PeerClient(peer: peer, http: http).holds(hash, byteCount: byteCount, sample: sample) { return peer.description }
        }
        return nil
    }

    // MARK: - Transfers

    private func join(_ hash: BlobHash, byteCount: Int64, store: AttachmentStore,
                      watcher: (UUID, AsyncStream<FetchEvent>.Continuation)? = nil) -> SingleFlight<BlobHash, Void, FetchEvent>.Ticket {
        transfers.join(hash, watcher: watcher.map { (id: $0.0, continuation: $0.1) }) { _ in
            try await self.transfer(hash, byteCount: byteCount, into: store)
        }
    }

    private func report(_ hash: BlobHash, received: Int64, total: Int64, newBytes: Int64) {
        self.received.withLock { $0 += newBytes }
        transfers.report(hash, .progress(received: received, total: total))
    }

    /// Tries each peer in order until one delivers verified bytes.
    private func transfer(_ hash: BlobHash, byteCount: Int64, into store: AttachmentStore) async throws {
        if try await store.hasBlob(hash) { return }
        var failures: [SyncError] = []
        for peer in peers.withLock({ $0 }) {
            try Task.checkCancellation()
            do {
                try await transfer(hash, byteCount: byteCount, from: peer, into: store)
                return
            } catch let error as CancellationError {
                throw error
            } catch {
                logger.warning("blob fetch failed", metadata: ["peer": "\(peer)", "blob": "\(hash)", "error": "\(error)"])
                failures.append(Self.failure(error, from: peer))
                if case SyncError.wrongBytes = error, peers.withLock({ $0.count }) == 1 { throw error }
            }
        }
        throw SyncError.blobUnavailable(hash: hash, failures: failures)
    }

    /// `error`, thrown while fetching from `peer`, as the typed failure the result keeps.
    private static func failure(_ error: any Error, from peer: Peer) -> SyncError {
        switch error {
        case let error as SyncError: error
        case let error as AttachmentStore.Error: .storeFailed(peer: peer.description, cause: error)
        default: .peerUnreachable(peer: peer.description, reason: String(describing: error))
        }
    }

    private func transfer(_ hash: BlobHash, byteCount: Int64, from peer: Peer, into store: AttachmentStore) async throws {
        let download = try await store.blobDownload(for: hash, byteCount: byteCount, from: peer.description)
        defer { download.close() }
        do {
            try await transfer(into: download, from: peer)
        } catch {
            await download.settle()  // libvips may be loading for this image: never leave it half-started
            throw error
        }
    }

    private func transfer(into download: BlobDownload, from peer: Peer) async throws {
        let (hash, byteCount) = (download.hash, download.expectedSize)
        let client = PeerClient(peer: peer, http: http)
        var offset = download.resumeOffset
        if offset < byteCount {
            let response = try await client.blob(hash, from: offset)
            if offset > 0 && response.status.code == 200 {
                throw SyncError.badResponse(peer: peer.description, reason: "it ignored the Range header")
            }
            // A peer announcing more bytes than the record says is refused before a byte is read.
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int64.init), announced > byteCount - offset {
                throw SyncError.badResponse(peer: peer.description,
                                            reason: "it announced \(announced) bytes from offset \(offset) of a blob of \(byteCount)")
            }
            report(hash, received: offset, total: byteCount, newBytes: 0)
            do {
                offset = try await download.receive(response.body.map(\.readableBytesView)) { received, newBytes in
                    report(hash, received: received, total: byteCount, newBytes: newBytes)
                }
            } catch let overrun as BlobDownload.SizeError {
                // More bytes than the record says: the transfer stops at once, nothing is kept past it.
                throw SyncError.badResponse(peer: peer.description, reason: overrun.description)
            } catch let error as AttachmentStore.Error {
                throw error
            } catch let error as CancellationError {
                throw error
            } catch let cut as BlobDownload.Cut {
                throw SyncError.peerUnreachable(peer: peer.description, reason: "the transfer was cut at \(cut.offset) of \(byteCount) bytes (\(cut.cause))")
            }
        }
        guard offset == byteCount else {
            throw SyncError.peerUnreachable(peer: peer.description, reason: "the transfer ended at \(offset) of \(byteCount) bytes")
        }
        do {
            try await download.finish()
        } catch AttachmentStore.Error.hashMismatch {
            throw SyncError.wrongBytes(peer: peer.description, hash: hash)
        }
    }
}
