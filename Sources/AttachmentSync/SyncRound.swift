import AsyncHTTPClient
import AttachmentStore
import Foundation

/// One pull from one peer: every change since the last pull, applied in batches.
///
/// Idempotent and resumable: the cursor is saved after each applied batch, so a cut round
/// goes on where it stopped. No blob bytes move.
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
    /// Changes asked for per request.
    public var batchSize = 500

    /// A round against `peer`.
    public init(peer: Peer, http: HTTPClient = .shared) {
        self.peer = peer
        self.http = http
    }

    /// Pulls and applies everything new.
    /// - Throws: ``SyncError`` for network and protocol failures; what was applied stays applied.
    public func run(into store: AttachmentStore) async throws -> Report {
        let client = PeerClient(peer: peer, http: http)
        var report = Report(peer: peer.description)
        var cursor = try await store.syncCursor(forPeer: peer.description)
        while true {
            try Task.checkCancellation()
            let batch = try await client.changes(since: cursor, limit: batchSize)
            guard batch.peerID != store.peerID else {
                throw SyncError.badResponse(peer: peer.description, reason: "it is this store itself")
            }
            let applied = try await store.apply(batch)
            report.batches += 1
            report.changes += batch.changes.count
            report.applied.notesApplied += applied.notesApplied
            report.applied.attachmentsApplied += applied.attachmentsApplied
            report.applied.deletionsApplied += applied.deletionsApplied
            report.applied.ignored += applied.ignored
            report.applied.newRemoteBlobs += applied.newRemoteBlobs
            cursor = batch.nextSequence
            try await store.setSyncCursor(cursor, forPeer: peer.description)
            if !batch.hasMore { break }
        }
        report.cursor = cursor
        return report
    }
}
