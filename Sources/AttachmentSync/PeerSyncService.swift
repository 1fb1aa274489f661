import AsyncCoordination
import AsyncHTTPClient
import AttachmentStore
import Logging
import ServiceLifecycle

/// Keeps a store in step with its peers: a push loop per peer that sends this store's changes as
/// they are made (see ``Configuration/pushMode``), and a pull round per peer, held by the peer until it has a
/// change (a long poll, so changes arrive as they are made), at most one round per interval
/// when a peer answers at once with nothing, backing off while a peer is unreachable, and
/// fetching ahead what the ``FetchMode`` asks for.
///
/// Run it in the app's `ServiceGroup`; graceful shutdown ends it between rounds.
public struct PeerSyncService: Service {
    /// How often and how hard to sync; every field has a default.
    public struct Configuration: Sendable {
        /// The peers to pull from.
        public var peers: [Peer]
        /// The shortest time between the starts of two rounds that brought nothing and were not
        /// held: how often a peer that does not hold requests is asked. Default 5 s.
        public var interval: Duration = .seconds(5)
        /// How long a peer may hold a round's request while it has nothing new: it answers as
        /// soon as it has a change, so changes arrive as they are made. Whole seconds, at most 55;
        /// zero polls every ``interval`` instead. Default 25 s.
        public var wait: Duration = .seconds(25)
        /// The longest wait after failures (the wait doubles from `interval`). Default 60 s.
        public var maximumBackoff: Duration = .seconds(60)
        /// What to fetch ahead of need. Default ``FetchMode/onDemand``.
        public var fetchMode: FetchMode = .onDemand
        /// What to push to each peer, as this store's feed moves. Default ``PushMode/records``.
        /// A peer that refuses pushes (its token for this store only reads, or it predates
        /// push) is pushed to no more, with one warning; pulling from it goes on.
        public var pushMode: PushMode = .records
        /// Thumbnail size fetched in ``FetchMode/thumbnails`` mode. Default 200.
        public var thumbnailSize = 200

        /// A configuration pulling from `peers`.
        public init(peers: [Peer]) { self.peers = peers }
    }

    let store: AttachmentStore
    let fetcher: BlobFetcher
    /// Where each round's outcome is recorded.
    public let ledger: PeerSyncLedger
    let configuration: Configuration
    let http: HTTPClient
    let logger: Logger
    let clock: LoopClock

    /// A service syncing `store` with `configuration.peers`, fetching bytes through `fetcher`,
    /// pacing its rounds and back-off on `clock` (the system's, unless a test drives one).
    public init(store: AttachmentStore, fetcher: BlobFetcher, configuration: Configuration, ledger: PeerSyncLedger = PeerSyncLedger(),
                http: HTTPClient = PeerHTTPClient.system, logger: Logger = Logger(label: "attachment-sync"),
                clock: some Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.fetcher = fetcher
        self.ledger = ledger
        self.configuration = configuration
        self.http = http
        self.logger = logger
        self.clock = LoopClock(clock)
    }

    /// The pacing of one peer's loop under this configuration.
    private var pacing: RoundPacing {
        RoundPacing(interval: configuration.interval, maximumBackoff: configuration.maximumBackoff, wait: configuration.wait)
    }

    public func run() async throws {
        for peer in configuration.peers { ledger.register(peer: peer.description) }
        await withDiscardingTaskGroup { group in
            for peer in configuration.peers {
                group.addTask { await cancelWhenGracefulShutdown { await syncForever(with: peer) } }
                if configuration.pushMode != .off {
                    group.addTask { await cancelWhenGracefulShutdown { await pushForever(to: peer) } }
                }
            }
        }
    }

    private func syncForever(with peer: Peer) async {
        var pacing = self.pacing
        while !Task.isCancelled {
            let started = clock.now
            let pause: Duration
            do {
                var round = SyncRound(peer: peer, http: http)
                round.ledger = ledger
                round.logger = logger
                round.wait = configuration.wait
                let report = try await round.run(into: store)
                ledger.recordCompletedRound(peer: peer.description)
                if report.changes > 0 {
                    logger.info("synced", metadata: ["peer": "\(peer)", "changes": "\(report.changes)",
                                                      "remoteBlobs": "\(report.applied.newRemoteBlobs)"])
                }
                try await fetchAhead(from: peer)
                pause = pacing.afterPull(took: clock.now - started, changes: report.changes, cursor: report.cursor)
            } catch is CancellationError {
                return
            } catch {
                ledger.record(failure: error, peer: peer.description)
                pause = pacing.afterFailure()
                logger.warning("sync round failed; retrying later", metadata: ["peer": "\(peer)", "error": "\(error)", "retryIn": "\(pause)"])
            }
            try? await clock.sleep(for: pause)
        }
    }

    /// Pushes this store's changes to `peer` as they are made: a round whenever the feed has
    /// moved past what was pushed (waiting for it up to 55 s at a time), backing off while the
    /// peer is unreachable. Changes pulled from the peer go back to it once and are ignored
    /// there. Ends, with a warning, when the peer refuses pushes.
    private func pushForever(to peer: Peer) async {
        var pacing = self.pacing
        while !Task.isCancelled {
            let pause: Duration
            do {
                let cursor = try await store.pushCursor(forPeer: peer.description)
                if try await store.changeFeedPosition() <= cursor {
                    guard await store.waitForChanges(after: cursor, upTo: .seconds(55)) else { continue }
                }
                var round = PushRound(peer: peer, http: http)
                round.logger = logger
                round.sendsOriginals = configuration.pushMode == .originals
                let report = try await round.run(from: store)
                if report.applied.notesApplied + report.applied.attachmentsApplied + report.applied.deletionsApplied > 0 || report.blobsSent > 0 {
                    logger.info("pushed", metadata: ["peer": "\(peer)", "changes": "\(report.changes)", "originals": "\(report.blobsSent)"])
                }
                pause = pacing.afterPush()
            } catch is CancellationError {
                return
            } catch SyncError.peerRefused(_, let status, let message) where [401, 403, 404, 405].contains(status) {
                logger.warning("the peer refuses pushes; only pulling from it", metadata: [
                    "peer": "\(peer)", "status": "\(status)", "message": "\(PeerText.escaped(message, limit: 200, markup: false))",
                ])
                return
            } catch {
                pause = pacing.afterFailure()
                logger.warning("push failed; retrying later", metadata: ["peer": "\(peer)", "error": "\(error)", "retryIn": "\(pause)"])
            }
            try? await clock.sleep(for: pause)
        }
    }

    /// Fetches originals or thumbnails ahead of need, per the fetch mode. Thumbnails are asked
    /// for only of the images whose records `peer` sent (the store keeps that list, also across
    /// restarts and `attach sync pull`), only from `peer`, and by the content hash its record
    /// named (with the sync scope; no other peer learns of them, and no peer learns an
    /// attachment id). What it gives is provisional (see `AttachmentStore.storeThumbnail`).
    private func fetchAhead(from peer: Peer) async throws {
        switch configuration.fetchMode {
        case .onDemand:
            return
        case .originals:
            for (hash, byteCount) in try await store.remoteBlobs() {
                try Task.checkCancellation()
                do {
                    try await fetcher.fetch(hash, byteCount: byteCount, into: store)
                } catch let error as SyncError {
                    logger.warning("could not fetch ahead", metadata: ["blob": "\(hash)", "error": "\(error)"])
                }
            }
        case .thumbnails:
            let client = PeerClient(peer: peer, http: http)
            var done = Set<AttachmentID>()
            do {
                try await fetchThumbnails(from: client, done: &done)
            } catch {
                try? await store.removePendingPeerThumbnails(done, from: peer.description)
                throw error
            }
            try await store.removePendingPeerThumbnails(done, from: peer.description)
        }
    }

    /// Asks `client`'s peer for the thumbnails waiting for it; adds to `done` each one finished with.
    private func fetchThumbnails(from client: PeerClient, done: inout Set<AttachmentID>) async throws {
        let peer = client.peer
        for (id, hash) in try await store.pendingPeerThumbnails(from: peer.description) {
                try Task.checkCancellation()
                guard let attachment = try? await store.attachment(id), attachment.blobHash == hash, attachment.availability == .remote,
                      attachment.image != nil, await !store.hasCachedThumbnail(for: attachment, maxPixelSize: configuration.thumbnailSize)
                else {
                    done.insert(id)  // gone, changed since, here already, or shown already
                    continue
                }
                do {
                    let data = try await client.thumbnail(of: hash, size: configuration.thumbnailSize)
                    try await store.storeThumbnail(data, for: attachment, maxPixelSize: configuration.thumbnailSize)
                    done.insert(id)
                } catch let error as SyncError {
                    // A refusal (the peer has no thumbnail of it) is final; a cut is tried again next round.
                    if case .peerRefused = error { done.insert(id) }
                    logger.warning("could not fetch a peer thumbnail", metadata: ["peer": "\(peer)", "attachment": "\(id)", "error": "\(error)"])
                } catch let error as AttachmentStore.Error {
                    done.insert(id)
                    logger.warning("refused a peer thumbnail", metadata: ["peer": "\(peer)", "attachment": "\(id)", "error": "\(error)"])
                }
        }
    }
}
