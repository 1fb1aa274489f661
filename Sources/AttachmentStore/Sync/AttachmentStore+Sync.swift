import CatalogSQL
import Foundation

extension AttachmentStore {
    /// The change feed after `sequence`: each changed note, attachment record (as a token,
    /// without bytes) and deletion, in the order of its latest change, at most `limit` of them.
    ///
    /// Changes this store applied from peers are in the feed too, so peers relay for each other.
    package func changes(since sequence: Int64, limit: Int = 500) async throws -> SyncBatch {
        let limit = max(1, min(limit, 10_000))
        let peer = peerID
        return try await catalog.read { db in
            let entries = try ChangeFeedEntry.after(sequence, limit: limit + 1, in: db)
            var changes: [SyncChange] = []
            for entry in entries.prefix(limit) {
                if let change = try Self.currentChange(entity: entry.entity, id: entry.id, in: db) { changes.append(change) }
            }
            let next = entries.prefix(limit).last?.sequence ?? sequence
            return SyncBatch(peerID: peer, changes: changes, nextSequence: next, hasMore: entries.count > limit)
        }
    }

    /// The change feed's newest position now: what `changes(since:)` would answer nothing after
    /// (0 while the feed is empty). A page rendered with it follows the feed from there.
    package func changeFeedPosition() async throws -> Int64 {
        try await catalog.read { db in try Catalog.feedPosition(in: db) }
    }

    /// Waits until the change feed has a change after `sequence`, or `timeout` has passed (to
    /// within a quarter of a second), or the task is cancelled: the long poll of
    /// `GET /sync/changes?wait=`. A write by this process wakes the waiter at once; a write by
    /// another (a server sharing the PostgreSQL catalog, `attach` on the same store folder) is
    /// seen within a quarter of a second. However many wait, the feed is read by one check at a time.
    /// - Returns: whether the feed has a change after `sequence`.
    package func waitForChanges(after sequence: Int64, upTo timeout: Duration) async -> Bool {
        await catalog.changeFeed.wait(past: sequence, timeout: timeout)
    }

    /// What the feed says about one record now: its state, its tombstone, or nothing (an
    /// attachment deleted with its note).
    private static func currentChange(entity: String, id: String, in db: any SQLTransaction) throws -> SyncChange? {
        if let tombstone = try TombstoneRecord.fetch(entity: entity, id: id, in: db) {
            return .tombstone(.init(entity: entity, id: id, clock: ClockStamp(rawValue: tombstone.clock)))
        }
        switch entity {
        case "note":
            guard let note = try NoteRecord.fetch(id, in: db) else { return nil }
            return .note(.init(note.note, clock: ClockStamp(rawValue: note.clock), trashedAt: note.trashedAt,
                               versions: note.versions.isEmpty ? nil : note.versions))
        case "attachment":
            guard let row = try AttachmentRow.fetch(id, in: db) else { return nil }
            return .attachment(.init(try row.value, clock: ClockStamp(rawValue: row.attachment.clock), trashedAt: row.attachment.trashedAt))
        default:
            return nil
        }
    }

    /// Applies a peer's batch in one transaction, idempotently: newer versions win (by hybrid
    /// logical clock, the peer id breaking ties; a move to the trash or a restore from it is
    /// such a version), deletions (purges) always win, and attachment records
    /// arrive with their blob marked remote. No blob bytes move.
    ///
    /// Every change is first checked against ``Configuration/peerLimits``; one that fails (or
    /// that could not be read) is counted in ``SyncApplyReport/invalid`` with its reason and
    /// skipped, and the rest of the batch is applied: a peer cannot stall sync with one bad change.
    package func apply(_ batch: SyncBatch) async throws -> SyncApplyReport {
        let clock = self.clock
        let validation = SyncChangeValidation(limits: configuration.peerLimits)
        return try await catalog.write { db in
            var report = SyncApplyReport()
            for problem in batch.unreadable { report.refuse(problem) }
            var tokens: [SyncChange.AttachmentToken] = []
            for change in batch.changes {
                if let problem = validation.problem(with: change) {
                    report.refuse(problem)
                    continue
                }
                switch change {
                case .note(let note):
                    clock.observe(note.clock)
                    if try Self.applyNote(note, in: db) { report.notesApplied += 1 } else { report.ignored += 1 }
                case .attachment(let token):
                    clock.observe(token.clock)
                    tokens.append(token)
                case .tombstone(let tombstone):
                    clock.observe(tombstone.clock)
                    if try Self.applyTombstone(tombstone, in: db) { report.deletionsApplied += 1 } else { report.ignored += 1 }
                }
            }
            // Attachments after notes: a note edited after its attachments were added comes later in the feed.
            for token in tokens {
                switch try Self.applyAttachment(token, in: db) {
                case .applied(let newRemoteBlob):
                    report.attachmentsApplied += 1
                    if MediaTypeSniffer.isReadableRaster(token.attachment.mediaType) {
                        report.imagesApplied[token.attachment.id] = token.attachment.blobHash
                    }
                    if newRemoteBlob { report.newRemoteBlobs += 1 }
                case .ignored:
                    report.ignored += 1
                }
            }
            return report
        }
    }

    /// A peer's note: taken when it includes every edit of ours, ignored when ours includes it,
    /// merged with ours when each has an edit the other lacks (``NoteMerge``).
    private static func applyNote(_ change: SyncChange.NoteState, in db: any SQLTransaction) throws -> Bool {
        let note = change.note
        guard try !TombstoneRecord.exists(entity: "note", id: note.id.rawValue, in: db) else { return false }
        var incoming = NoteRecord(note)
        incoming.clock = change.clock.rawValue
        incoming.trashedAt = change.trashedAt
        incoming.versions = change.versions ?? VersionVector()
        guard let local = try NoteRecord.fetch(note.id.rawValue, in: db) else {
            try incoming.save(db)
            return true
        }
        guard let result = try NoteMerge.resolve(local: local, incoming: incoming, in: db) else { return false }
        // The text a newer edit or a merge replaces stays readable and restorable here (`noteVersions(of:)`).
        try NoteVersionRecord.keep(local, replacedBy: result, in: db)
        try result.save(db)
        return true
    }

    private static func applyTombstone(_ tombstone: SyncChange.Tombstone, in db: any SQLTransaction) throws -> Bool {
        guard try !TombstoneRecord.exists(entity: tombstone.entity, id: tombstone.id, in: db) else { return false }
        try TombstoneRecord(entity: tombstone.entity, id: tombstone.id, clock: tombstone.clock.rawValue).save(db)
        switch tombstone.entity {
        case "note": try NoteRecord.delete(tombstone.id, in: db)
        case "attachment": try AttachmentRecord.delete(tombstone.id, in: db)
        default: break
        }
        return true
    }

    private enum AttachmentOutcome { case applied(newRemoteBlob: Bool), ignored }

    private static func applyAttachment(_ token: SyncChange.AttachmentToken, in db: any SQLTransaction) throws -> AttachmentOutcome {
        var received = token.attachment
        guard try !TombstoneRecord.exists(entity: "attachment", id: received.id.rawValue, in: db),
              try !TombstoneRecord.exists(entity: "note", id: received.noteID.rawValue, in: db) else { return .ignored }
        if let local = try AttachmentRecord.fetch(received.id.rawValue, in: db), ClockStamp(rawValue: local.clock) >= token.clock {
            return .ignored
        }
        if try !NoteRecord.exists(received.noteID.rawValue, in: db) {
            // The note's own change comes in a later batch; until then it is an empty note
            // older than any real version of it.
            var placeholder = NoteRecord(Note(id: received.noteID, title: "", body: "", createdAt: received.createdAt, updatedAt: received.createdAt))
            placeholder.clock = ClockStamp.origin.rawValue
            try placeholder.insert(db)
        }
        var newRemoteBlob = false
        if try BlobRecord.fetch(received.blobHash.rawValue, in: db) == nil {
            try BlobRecord(hash: received.blobHash.rawValue, byteCount: received.byteCount, state: .remote, createdAt: Date()).insert(db)
            newRemoteBlob = true
        }
        received.mediaType = try Self.mediaType(claimed: received.mediaType, blob: received.blobHash, in: db)
        received.filename = try RecordRules.filename(given: received.filename)  // checked already: its last part
        var record = AttachmentRecord(received, clock: token.clock)
        record.trashedAt = token.trashedAt
        try record.save(db)
        return .applied(newRemoteBlob: newRemoteBlob)
    }

    /// The media type an attachment from a peer is recorded with: the type this store sniffed
    /// from the bytes when it has them (another attachment shares the blob), else the peer's
    /// claim when it is a raster type this store reads, else `application/octet-stream`. The
    /// bytes decide once they arrive (``installDownloaded(_:)``).
    private static func mediaType(claimed: String, blob: BlobHash, in db: any SQLTransaction) throws -> String {
        if try BlobRecord.isPresent(blob.rawValue, in: db),
           let known = try AttachmentRecord.recordedMediaType(of: blob, in: db) {
            return known
        }
        return MediaTypeSniffer.isReadableRaster(claimed) ? claimed : "application/octet-stream"
    }

    /// Blobs known here only as records: their bytes are on a peer.
    public func remoteBlobs() async throws -> [(hash: BlobHash, byteCount: Int64)] {
        try await catalog.read { db in
            try BlobRecord.all(in: .remote, in: db).map { (try $0.validatedHash, $0.byteCount) }
        }
    }
}

extension AttachmentStore {
    /// How far this store has read a peer's change feed (0 before the first pull).
    package func syncCursor(forPeer peer: String) async throws -> Int64 {
        try await catalog.read { db in Int64(try StoreSetting.value("cursor " + peer, in: db) ?? "0") ?? 0 }
    }

    /// Records how far this store has read a peer's change feed.
    package func setSyncCursor(_ sequence: Int64, forPeer peer: String) async throws {
        try await catalog.write { db in try StoreSetting.set("cursor " + peer, String(sequence), in: db) }
    }

    /// How far this store's own change feed has been pushed to a peer (0 before the first push).
    package func pushCursor(forPeer peer: String) async throws -> Int64 {
        try await catalog.read { db in Int64(try StoreSetting.value("pushed " + peer, in: db) ?? "0") ?? 0 }
    }

    /// Records how far this store's own change feed has been pushed to a peer.
    package func setPushCursor(_ sequence: Int64, forPeer peer: String) async throws {
        try await catalog.write { db in try StoreSetting.set("pushed " + peer, String(sequence), in: db) }
    }
}

extension AttachmentStore {
    /// The peers this store has pulled from, as they were named (URLs), in order of their names.
    public func knownPeers() async throws -> [String] {
        try await catalog.read { db in
            try StoreSetting.keys(withPrefix: "cursor ", in: db).map { String($0.dropFirst("cursor ".count)) }
        }
    }
}
