import AsyncHTTPClient
import AttachmentStore
import Foundation
import Logging

/// One pull from one peer: every change since the last pull, applied in batches.
///
/// Idempotent and resumable: each batch is applied and the cursor moved past it in one
/// transaction, so a cut round goes on where it stopped. No blob bytes move.
///
/// Fast when far behind (a new device's first sync): three pages are in hand at once — the
/// peer makes the next page while this side reads and checks one and applies the one before —
/// and each page that says more follow doubles the size of the next request, up to
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
        // Only the first request is held: later ones follow a batch that said more follow.
        let held = min(wait, .seconds(55))
        var pending = read(request(PageRequest(since: cursor, limit: max(1, batchSize)), from: client, wait: held),
                           from: client, into: store, budget: maxBatches)
        // The page after the last one read is already on its way when the round stops early.
        var ahead: PageInFlight?
        defer {
            pending.cancel()
            ahead?.body.cancel()
        }
        while report.batches < maxBatches {
            try Task.checkCancellation()
            let page: ReadPage
            do {
                let reading = pending
                page = try await withTaskCancellationHandler { try await reading.task.value } onCancel: { reading.cancel() }
            } catch PeerClient.BatchError.tooLarge {
                var smaller = pending.request
                guard smaller.limit > 1 else {
                    throw SyncError.badResponse(peer: peer.description, reason: "one change is larger than \(maxBatchBytes) bytes")
                }
                smaller.limit = max(1, smaller.limit / 2)
                pending = read(request(smaller, from: client, wait: report.batches == 0 ? held : .zero),
                               from: client, into: store, budget: maxBatches - report.batches)
                continue
            }
            ahead = page.following
            try check(page.checked, answering: page.request, store: store)
            let batch = page.checked.batch
            // The page after this one was asked for as soon as this one's cursor was read; it is
            // now read and checked while this one is applied.
            if let following = page.following {
                pending = read(following, from: client, into: store, budget: maxBatches - report.batches - 1)
                ahead = nil
            }
            let applied = try await store.apply(page.checked, pulledFrom: peer.description)
            report.batches += 1
            report.changes += page.checked.entryCount
            report.applied.add(applied)
            ledger?.record(batch: applied, changes: page.checked.entryCount, peer: peer.description)
            if applied.invalid > 0 {
                logger?.warning("peer sent invalid changes; they were skipped", metadata: [
                    "peer": "\(peer)", "invalid": "\(applied.invalid)", "reasons": "\(applied.problems.joined(separator: "; "))",
                ])
            }
            cursor = batch.nextSequence
            if !batch.hasMore || page.following == nil { break }
        }
        report.cursor = cursor
        return report
    }

    /// One request of the round: the changes after `since`, at most `limit` of them.
    struct PageRequest: Sendable {
        var since: Int64
        var limit: Int
    }

    /// A request sent, its page's bytes on their way.
    struct PageInFlight: Sendable {
        let request: PageRequest
        let body: Task<Data, any Error>
    }

    /// A page read and checked, and the request for the page after it, if more follow and the
    /// round takes more, already sent.
    struct ReadPage: Sendable {
        let request: PageRequest
        let checked: CheckedSyncBatch
        let following: PageInFlight?
    }

    /// The reading of one page: its request, and the task that reads and checks it.
    struct PageReading: Sendable {
        let request: PageRequest
        let task: Task<ReadPage, any Error>

        func cancel() { task.cancel() }
    }

    /// Sends `request`; its bytes arrive on their own task.
    private func request(_ request: PageRequest, from client: PeerClient, wait: Duration) -> PageInFlight {
        let maxBytes = maxBatchBytes
        return PageInFlight(request: request, body: Task {
            try await client.changePage(since: request.since, limit: request.limit, maxBytes: maxBytes, wait: wait)
        })
    }

    /// Reads the page `page` brings, for `store`: as soon as its bytes are in, the end of the page
    /// is read from them and, when more follow and the round takes more than this page
    /// (`budget`), the next request is sent — each page that says more follow doubling the next
    /// request, up to ``catchUpBatchSize`` — before this page's changes are read and checked. So the peer
    /// makes the next page while this one is read, and this one is read while the one before
    /// it is applied.
    private func read(_ page: PageInFlight, from client: PeerClient, into store: AttachmentStore, budget: Int) -> PageReading {
        let catchUp = catchUpBatchSize
        let task = Task { () throws -> ReadPage in
            let body = try await withTaskCancellationHandler { try await page.body.value } onCancel: { page.body.cancel() }
            let end = try client.cursor(of: body)
            var following: PageInFlight?
            if end.hasMore, end.nextSequence > page.request.since, budget > 1 {
                let limit = min(page.request.limit * 2, max(catchUp, page.request.limit))
                following = request(PageRequest(since: end.nextSequence, limit: limit), from: client, wait: .zero)
            }
            do {
                // The same decoder reads the same bytes, so the page ends where `end` says.
                let batch = try client.batch(in: body)
                return ReadPage(request: page.request, checked: store.check(batch), following: following)
            } catch {
                following?.body.cancel()
                throw error
            }
        }
        return PageReading(request: page.request, task: task)
    }

    /// Refuses a page no honest peer sends for `request`: one from this store itself, one with
    /// more changes than asked for, one that says more follow without moving its cursor.
    private func check(_ checked: CheckedSyncBatch, answering request: PageRequest, store: AttachmentStore) throws {
        let batch = checked.batch
        guard batch.peerID != store.peerID else {
            throw SyncError.badResponse(peer: peer.description, reason: "it is this store itself")
        }
        guard checked.entryCount <= request.limit else {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "it sent \(checked.entryCount) changes when asked for at most \(request.limit)")
        }
        if batch.hasMore && batch.nextSequence <= request.since {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "it says more changes follow but its cursor did not move past \(request.since)")
        }
    }
}
