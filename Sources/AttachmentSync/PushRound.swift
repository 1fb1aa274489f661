import AsyncHTTPClient
import AttachmentStore
import Foundation
import Logging

/// One push to one peer: every change of this store's feed since the last push, in batches,
/// and after each batch the bytes of the originals it names that the peer lacks and this
/// store holds. For stores the peer cannot reach (a laptop or phone behind NAT, a store with
/// no server): the connection is theirs.
///
/// Idempotent and resumable: the push cursor is saved only after a batch was applied and its
/// originals sent, so a cut round sends that batch again (the peer ignores what it has) and
/// each original goes on after the bytes the peer already holds: nothing is sent twice.
public struct PushRound: Sendable {
    /// What a round did.
    public struct Report: Sendable, Equatable, Codable {
        /// The peer pushed to.
        public var peer: String
        /// Batches sent.
        public var batches = 0
        /// Changes sent.
        public var changes = 0
        /// What applying them did on the peer, summed (its `invalid` counts changes it refused).
        public var applied = SyncApplyReport()
        /// Originals whose bytes were sent.
        public var blobsSent = 0
        /// Bytes of originals sent (a resumed original counts only what this round sent).
        public var bytesSent: Int64 = 0
        /// This store's feed position pushed so far.
        public var cursor: Int64 = 0
    }

    let peer: Peer
    let http: HTTPClient
    /// Changes per batch. Default 500.
    public var batchSize = 500
    /// The most bytes one batch may take on the wire (the peer takes at most 16 MiB); a larger
    /// one is sent again with half as many changes. Default 16 MiB.
    public var maxBatchBytes = 16 << 20
    /// The most batches one round sends; the next round goes on from there. Default 1,000.
    public var maxBatches = 1_000
    /// Whether the bytes of originals the peer lacks are sent too (the default), or only records.
    public var sendsOriginals = true
    /// Where a peer's refusals are logged, if anywhere.
    public var logger: Logger?

    /// A round against `peer`.
    public init(peer: Peer, http: HTTPClient = PeerHTTPClient.system) {
        self.peer = peer
        self.http = http
    }

    /// Pushes everything new, and the originals the peer asks for.
    /// - Throws: ``SyncError`` for network and protocol failures; what the peer applied stays applied.
    public func run(from store: AttachmentStore) async throws -> Report {
        let client = PeerClient(peer: peer, http: http)
        var report = Report(peer: peer.description)
        var cursor = try await store.pushCursor(forPeer: peer.description)
        var limit = batchSize
        while report.batches < maxBatches {
            try Task.checkCancellation()
            let batch = try await store.changes(since: cursor, limit: limit)
            guard !batch.changes.isEmpty else {
                // Only records gone since (or nothing): nothing to send, but the cursor moves past them.
                if batch.nextSequence > cursor {
                    cursor = batch.nextSequence
                    try await store.setPushCursor(cursor, forPeer: peer.description)
                }
                if !batch.hasMore { break }
                continue
            }
            let data = try batch.jsonData()
            if data.count > maxBatchBytes {
                guard limit > 1 else {
                    throw SyncError.badResponse(peer: peer.description, reason: "one change is larger than \(maxBatchBytes) bytes")
                }
                limit = max(1, limit / 2)
                continue
            }
            let answer = try await client.push(data)
            report.batches += 1
            report.changes += batch.changes.count
            report.applied.add(answer.applied)
            if answer.applied.invalid > 0 {
                logger?.warning("the peer refused changes of this store", metadata: [
                    "peer": "\(peer)", "invalid": "\(answer.applied.invalid)",
                    "reasons": "\(PeerText.escaped(answer.applied.problems.joined(separator: "; "), limit: 500, markup: false))",
                ])
            }
            if sendsOriginals { try await sendOriginals(answer.wanted, named: batch, from: store, client: client, report: &report) }
            cursor = batch.nextSequence
            try await store.setPushCursor(cursor, forPeer: peer.description)
            if !batch.hasMore { break }
        }
        report.cursor = cursor
        return report
    }

    /// Sends the bytes of each wanted original this store holds. The peer may only ask for
    /// originals the batch named (anything else is ignored: it does not pick what is read here).
    private func sendOriginals(_ wanted: [String], named batch: SyncBatch, from store: AttachmentStore, client: PeerClient,
                               report: inout Report) async throws {
        var sizes: [BlobHash: Int64] = [:]
        for case .attachment(let token) in batch.changes { sizes[token.attachment.blobHash] = token.attachment.byteCount }
        for text in Set(wanted) {
            guard let hash = BlobHash(rawValue: text), let byteCount = sizes[hash], try await store.hasBlob(hash) else { continue }
            let file = try await store.blobFile(hash)
            var offset = try await client.pushedOffset(of: hash, byteCount: byteCount)
            guard offset < byteCount else { continue }
            let start = offset
            offset = try await client.pushBytes(of: hash, file: file.url.path(percentEncoded: false), from: offset, byteCount: byteCount)
            guard offset == byteCount else {
                throw SyncError.badResponse(peer: peer.description, reason: "it holds \(offset) of the \(byteCount) bytes of blob \(hash) sent")
            }
            report.blobsSent += 1
            report.bytesSent += byteCount - start
        }
    }
}
