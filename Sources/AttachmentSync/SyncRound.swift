import AsyncHTTPClient
import AttachmentStore
import Foundation
import Logging

/// One pull from one peer: every change since the last pull, applied in batches.
///
/// Idempotent and resumable: each batch is applied and the cursor moved past it in one
/// transaction, so a cut round goes on where it stopped. No blob bytes move.
///
/// Fast when far behind (a new device's first sync): the next page is fetched while the
/// current one is applied, and each full page doubles the size of the next request, up to
/// ``catchUpBatchSize``.
///
/// The peer is not trusted: a change that breaks the store's `PeerInputLimits` is skipped
/// and counted (``Report/applied``'s `invalid`), never stalling the changes after it; a peer
/// that says more changes follow without moving its cursor forward is an error, not a loop; a
/// round reads at most ``maxBatches`` batches; a batch too large to read makes the round ask
/// for fewer changes.
public struct SyncRound: Sendable {
    /// What a round did.
    public struct Report: Sendable, Equatable, Codable {
        /// The peer pulled from.
        public var peer: String
        /// Batches read.
        public var batches = 0
        /// Changes read.
        public var changes = 0
        /// What applying them did, summed.
        public var applied = SyncApplyReport()
        /// The peer's feed position after the round.
        public var cursor: Int64 = 0
    }

    let peer: Peer
    let http: HTTPClient
    /// Changes asked for by the round's first request.
    public var batchSize = 500
    /// The most changes asked for per request while catching up: a page that comes back full
    /// doubles the next request, up to this. Default 5,000 (about 2 MB of JSON a page).
    public var catchUpBatchSize = 5_000
    /// The most bytes one batch may take on the wire; a larger one is asked for again with
    /// half as many changes. Default 16 MiB.
    public var maxBatchBytes = 16 << 20
    /// The most batches one round reads; the next round goes on from there. Default 1,000.
    public var maxBatches = 1_000
    /// Where each applied batch is recorded as it is applied (so a round that fails later
    /// still leaves its refused changes on record), if anywhere.
    public var ledger: PeerSyncLedger?
    /// How long the round's first request may be held by the peer when it has nothing new (a
    /// long poll: the peer answers as soon as it has a change). Whole seconds, at most 55; zero
    /// (the default) asks and returns at once. A peer that does not hold answers at once anyway.
    public var wait: Duration = .zero
    /// Where refused changes are logged (one warning per batch that had any, naming the peer), if anywhere.
    public var logger: Logger?

    /// A round against `peer`.
    public init(peer: Peer, http: HTTPClient = PeerHTTPClient.system) {
        self.peer = peer
        self.http = http
    }

    /// Pulls and applies everything new.
    /// - Throws: ``SyncError`` for network and protocol failures; what was applied stays applied.
    public func run(into store: AttachmentStore) async throws -> Report {
        let client = PeerClient(peer: peer, http: http)
        var report = Report(peer: peer.description)
        var cursor = try await store.syncCursor(forPeer: peer.description)
        var request = PageRequest(since: cursor, limit: max(1, batchSize))
        // Only the first request is held: later ones follow a batch that said more follow.
        var pending = fetch(request, from: client, wait: min(wait, .seconds(55)))
        defer { pending.cancel() }
        while report.batches < maxBatches {
            try Task.checkCancellation()
            let batch: SyncBatch
            do {
                let fetching = pending
                batch = try await withTaskCancellationHandler { try await fetching.value } onCancel: { fetching.cancel() }
            } catch PeerClient.BatchError.tooLarge {
                guard request.limit > 1 else {
                    throw SyncError.badResponse(peer: peer.description, reason: "one change is larger than \(maxBatchBytes) bytes")
                }
                request.limit = max(1, request.limit / 2)
                pending = fetch(request, from: client, wait: report.batches == 0 ? min(wait, .seconds(55)) : .zero)
                continue
            }
            try check(batch, answering: request, store: store)
            // The next page travels while this one is applied.
            var following = request
            if batch.hasMore {
                let full = batch.changes.count + batch.unreadable.count >= request.limit
                following = PageRequest(since: batch.nextSequence,
                                        limit: full ? min(request.limit * 2, max(catchUpBatchSize, request.limit)) : request.limit)
                if report.batches + 1 < maxBatches { pending = fetch(following, from: client, wait: .zero) }
            }
            let applied = try await store.apply(batch, pulledFrom: peer.description)
            report.batches += 1
            report.changes += batch.changes.count + batch.unreadable.count
            report.applied.add(applied)
            ledger?.record(batch: applied, changes: batch.changes.count + batch.unreadable.count, peer: peer.description)
            if applied.invalid > 0 {
                logger?.warning("peer sent invalid changes; they were skipped", metadata: [
                    "peer": "\(peer)", "invalid": "\(applied.invalid)", "reasons": "\(applied.problems.joined(separator: "; "))",
                ])
            }
            cursor = batch.nextSequence
            if !batch.hasMore { break }
            request = following
        }
        report.cursor = cursor
        return report
    }

    /// One request of the round: the changes after `since`, at most `limit` of them.
    struct PageRequest: Sendable {
        var since: Int64
        var limit: Int
    }

    /// Starts fetching the page `request` asks for.
    private func fetch(_ request: PageRequest, from client: PeerClient, wait: Duration) -> Task<SyncBatch, any Error> {
        let maxBytes = maxBatchBytes
        return Task { try await client.changes(since: request.since, limit: request.limit, maxBytes: maxBytes, wait: wait) }
    }

    /// Refuses a page no honest peer sends for `request`: one from this store itself, one with
    /// more changes than asked for, one that says more follow without moving its cursor.
    private func check(_ batch: SyncBatch, answering request: PageRequest, store: AttachmentStore) throws {
        guard batch.peerID != store.peerID else {
            throw SyncError.badResponse(peer: peer.description, reason: "it is this store itself")
        }
        guard batch.changes.count + batch.unreadable.count <= request.limit else {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "it sent \(batch.changes.count + batch.unreadable.count) changes when asked for at most \(request.limit)")
        }
        if batch.hasMore && batch.nextSequence <= request.since {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "it says more changes follow but its cursor did not move past \(request.since)")
        }
    }
}
