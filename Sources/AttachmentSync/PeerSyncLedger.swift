import AttachmentStore
import Foundation
import Synchronization

/// What continuous sync has seen of each peer: rounds, refused changes and the latest
/// failure, for `/sync/status`, `/metrics` and the log. Safe to share between tasks.
public final class PeerSyncLedger: Sendable {
    /// One peer's record.
    public struct Entry: Sendable, Equatable, Codable {
        /// The peer, as configured.
        public var peer: String
        /// Rounds that completed.
        public var rounds = 0
        /// Changes read from it, refused ones included.
        public var changes = 0
        /// Changes refused because they broke the store's peer limits or could not be read.
        public var invalidChanges = 0
        /// Why, for the latest refused changes (at most `SyncApplyReport.maxProblems`).
        public var latestProblems: [String] = []
        /// The latest failed round's error, cleared by a round that completes.
        public var lastError: String?
        /// When the latest round completed.
        public var lastSyncAt: Date?
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// An empty ledger.
    public init() {}

    /// Records an applied batch of `peer`'s: its changes and the ones refused. Called after
    /// every batch, so a round that fails later still leaves what it saw.
    public func record(batch applied: SyncApplyReport, changes: Int, peer: String) {
        entries.withLock { entries in
            var entry = entries[peer] ?? Entry(peer: peer)
            entry.changes += changes
            entry.invalidChanges += applied.invalid
            if !applied.problems.isEmpty { entry.latestProblems = applied.problems }
            entries[peer] = entry
        }
    }

    /// Lists `peer` with no round yet, so a status read before its first round ends (a long
    /// poll holds it up to the sync wait) still shows every configured peer.
    public func register(peer: String) {
        entries.withLock { entries in
            if entries[peer] == nil { entries[peer] = Entry(peer: peer) }
        }
    }

    /// Records a round with `peer` that completed.
    public func recordCompletedRound(peer: String, at date: Date = Date()) {
        entries.withLock { entries in
            var entry = entries[peer] ?? Entry(peer: peer)
            entry.rounds += 1
            entry.lastError = nil
            entry.lastSyncAt = date
            entries[peer] = entry
        }
    }

    /// Records a failed round.
    public func record(failure: any Error, peer: String) {
        entries.withLock { entries in
            var entry = entries[peer] ?? Entry(peer: peer)
            entry.lastError = String(describing: failure)
            entries[peer] = entry
        }
    }

    /// Every peer's record, in order of the peers' names.
    public var snapshot: [Entry] {
        entries.withLock { $0.values.sorted { $0.peer < $1.peer } }
    }
}
