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
            let page = Array(entries.prefix(limit))
            let changes = try Self.currentChanges(of: page, in: db)
            let next = page.last?.sequence ?? sequence
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

    /// What the feed says about each record of `entries` now, in their order: its state, its
    /// tombstone, or nothing (an attachment deleted with its note). A page is read in one query
    /// per kind (tombstones, notes, attachments), not two per entry.
    private static func currentChanges(of entries: [ChangeFeedEntry], in db: any SQLTransaction) throws -> [SyncChange] {
        let noteIDs = entries.filter { $0.entity == "note" }.map(\.id)
        let attachmentIDs = entries.filter { $0.entity == "attachment" }.map(\.id)
        let deletedNotes = try TombstoneRecord.clocks(entity: "note", ids: noteIDs, in: db)
        let deletedAttachments = try TombstoneRecord.clocks(entity: "attachment", ids: attachmentIDs, in: db)
        let notes = try NoteRecord.fetch(ids: noteIDs.filter { deletedNotes[$0] == nil }, in: db)
        let attachments = try AttachmentRow.fetch(ids: attachmentIDs.filter { deletedAttachments[$0] == nil }, in: db)
        return try entries.compactMap { entry -> SyncChange? in
            switch entry.entity {
            case "note":
                if let clock = deletedNotes[entry.id] { return .tombstone(.init(entity: "note", id: entry.id, clock: ClockStamp(rawValue: clock))) }
                guard let note = notes[entry.id] else { return nil }
                return .note(.init(note.note, clock: ClockStamp(rawValue: note.clock), trashedAt: note.trashedAt,
                                   versions: note.versions.isEmpty ? nil : note.versions))
            case "attachment":
                if let clock = deletedAttachments[entry.id] {
                    return .tombstone(.init(entity: "attachment", id: entry.id, clock: ClockStamp(rawValue: clock)))
                }
                guard let row = attachments[entry.id] else { return nil }
                return .attachment(.init(try row.value, clock: ClockStamp(rawValue: row.attachment.clock), trashedAt: row.attachment.trashedAt))
            default:
                return nil
            }
        }
    }

    /// `batch` checked against ``Configuration/peerLimits`` and the record rules as of now,
    /// ready for `apply(_:pulledFrom:)`. Pure computation: no catalog, no
    /// waiting, so it may run on whichever task holds the page.
    package func check(_ batch: SyncBatch) -> CheckedSyncBatch {
        let validation = SyncChangeValidation(limits: configuration.peerLimits)
        var checked = CheckedSyncBatch(batch: batch, refused: batch.unreadable)
        checked.batch.unreadable = []
        checked.batch.changes = []
        checked.batch.changes.reserveCapacity(batch.changes.count)
        for change in batch.changes {
            if let problem = validation.problem(with: change) {
                checked.refused.append(problem)
            } else {
                checked.batch.changes.append(change)
                if checked.latestClock.map({ $0 < change.clock }) ?? true { checked.latestClock = change.clock }
            }
        }
        return checked
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
        let (checked, clock, dialect) = (check(batch), self.clock, catalog.database.dialect)
        return try await catalog.write { db in try Self.apply(checked, clock: clock, dialect: dialect, in: db) }
    }

    /// Applies a batch pulled from `peer` as ``apply(_:)`` does and, in the same transaction,
    /// records the images it brought as waiting for `peer`'s thumbnails and moves `peer`'s
    /// cursor to the batch's end: one commit a batch, and a cut round resumes exactly after the
    /// last batch it applied.
    package func apply(_ batch: SyncBatch, pulledFrom peer: String) async throws -> SyncApplyReport {
        try await apply(check(batch), pulledFrom: peer)
    }

    /// Applies a batch pulled from `peer` and checked already (``check(_:)``), as
    /// `apply(_:pulledFrom:)` with a `SyncBatch` does.
    package func apply(_ checked: CheckedSyncBatch, pulledFrom peer: String) async throws -> SyncApplyReport {
        let (clock, dialect) = (self.clock, catalog.database.dialect)
        return try await catalog.write { db in
            let report = try Self.apply(checked, clock: clock, dialect: dialect, in: db)
            try Self.addPendingPeerThumbnails(report.imagesApplied, from: peer, in: db)
            try StoreSetting.set(Self.pullCursorPrefix + peer, String(checked.batch.nextSequence), in: db)
            return report
        }
    }

    /// The store setting that holds how far a peer's feed was pulled, before the peer's address.
    private static let pullCursorPrefix = "cursor "

    /// The changes of `checked` applied in `db`. In SQLite the notes the batch adds are indexed
    /// for search together, once it is applied (``NoteSearchDeferral``).
    private static func apply(_ checked: CheckedSyncBatch, clock: HybridClock, dialect: SQLDialect,
                              in db: any SQLTransaction) throws -> SyncApplyReport {
        try NoteSearchIndexing.collectingNewNotes(dialect, in: db) {
            try apply(checked, clock: clock, in: db)
        }
    }

    /// The changes of `checked` applied in `db`, its refused entries counted.
    private static func apply(_ checked: CheckedSyncBatch, clock: HybridClock, in db: any SQLTransaction) throws -> SyncApplyReport {
        var report = SyncApplyReport()
        for problem in checked.refused { report.refuse(problem) }
        let valid = checked.batch.changes
        // Past every reading of the page before anything is applied: a merge stamps its result
        // later than all of them.
        if let latest = checked.latestClock { clock.observe(latest) }
        var lookups = try SyncBatchLookups(for: valid, in: db)
        var writes = SyncPageWrites()
        var tokens: [SyncChange.AttachmentToken] = []
        for change in valid {
            switch change {
            case .note(let note):
                if try applyNote(note, lookups: &lookups, writes: &writes, in: db) { report.notesApplied += 1 } else { report.ignored += 1 }
            case .attachment(let token):
                tokens.append(token)
            case .tombstone(let tombstone):
                if try applyTombstone(tombstone, lookups: &lookups, writes: &writes, in: db) {
                    report.deletionsApplied += 1
                } else {
                    report.ignored += 1
                }
            }
        }
        // Attachments after notes: a note edited after its attachments were added comes later in the feed.
        for token in tokens {
            switch try applyAttachment(token, lookups: &lookups, writes: &writes, in: db) {
            case .applied(let newRemoteBlob):
                report.attachmentsApplied += 1
                if MediaTypeSniffer.hasPicture(token.attachment.mediaType) {
                    report.imagesApplied[token.attachment.id] = token.attachment.blobHash
                }
                if newRemoteBlob { report.newRemoteBlobs += 1 }
            case .ignored:
                report.ignored += 1
            }
        }
        try writes.write(in: db)
        return report
    }

    /// A peer's note: taken when it includes every edit of ours, ignored when ours includes it,
    /// merged with ours when each has an edit the other lacks (``NoteMerge``). A note new here
    /// is held in `writes`.
    private static func applyNote(_ change: SyncChange.NoteState, lookups: inout SyncBatchLookups, writes: inout SyncPageWrites,
                                  in db: any SQLTransaction) throws -> Bool {
        let note = change.note
        guard !lookups.isTombstoned("note", note.id.rawValue) else { return false }
        var incoming = NoteRecord(note)
        incoming.clock = change.clock.rawValue
        incoming.trashedAt = change.trashedAt
        incoming.versions = change.versions ?? VersionVector()
        guard lookups.noteExists(note.id.rawValue) else {
            try writes.add(incoming, in: db)
            lookups.noteWritten(note.id.rawValue)
            return true
        }
        try writes.write(in: db)  // the note may be one this page added
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

    private static func applyTombstone(_ tombstone: SyncChange.Tombstone, lookups: inout SyncBatchLookups, writes: inout SyncPageWrites,
                                       in db: any SQLTransaction) throws -> Bool {
        try writes.write(in: db)  // what it deletes may be a row this page added
        if tombstone.entity == "note" || tombstone.entity == "attachment" {
            guard !lookups.isTombstoned(tombstone.entity, tombstone.id) else { return false }
            lookups.deleted(tombstone.entity, tombstone.id)
        } else {
            guard try !TombstoneRecord.exists(entity: tombstone.entity, id: tombstone.id, in: db) else { return false }
        }
        try TombstoneRecord(entity: tombstone.entity, id: tombstone.id, clock: tombstone.clock.rawValue).save(db)
        switch tombstone.entity {
        case "note": try NoteRecord.delete(tombstone.id, in: db)
        case "attachment": try AttachmentRecord.delete(tombstone.id, in: db)
        default: break
        }
        return true
    }

    private enum AttachmentOutcome { case applied(newRemoteBlob: Bool), ignored }

    /// A peer's attachment record, newer than ours or new here; a new one, its blob record and
    /// a placeholder for its note are held in `writes`.
    private static func applyAttachment(_ token: SyncChange.AttachmentToken, lookups: inout SyncBatchLookups,
                                        writes: inout SyncPageWrites, in db: any SQLTransaction) throws -> AttachmentOutcome {
        var received = token.attachment
        let id = received.id.rawValue, noteID = received.noteID.rawValue, hash = received.blobHash.rawValue
        guard !lookups.isTombstoned("attachment", id), !lookups.isTombstoned("note", noteID) else { return .ignored }
        let isNew: Bool
        if let local = lookups.attachmentClock(id) {
            guard ClockStamp(rawValue: local) < token.clock else { return .ignored }
            isNew = false
        } else {
            isNew = true
        }
        if !lookups.noteExists(noteID) {
            // The note's own change comes in a later batch; until then it is an empty note
            // older than any real version of it.
            var placeholder = NoteRecord(Note(id: received.noteID, title: "", body: "", createdAt: received.createdAt, updatedAt: received.createdAt))
            placeholder.clock = ClockStamp.origin.rawValue
            try writes.add(placeholder, in: db)
            lookups.noteWritten(noteID)
        }
        var newRemoteBlob = false
        if lookups.blobState(hash) == nil {
            try writes.add(BlobRecord(hash: hash, byteCount: received.byteCount, state: .remote, createdAt: Date()), in: db)
            lookups.blobWritten(hash, state: .remote)
            newRemoteBlob = true
        }
        if var motion = received.motion {
            // A Live Photo's clip: a blob like the still's, fetched when someone plays it.
            let motionHash = motion.blobHash.rawValue
            if lookups.blobState(motionHash) == nil {
                try writes.add(BlobRecord(hash: motionHash, byteCount: motion.byteCount, state: .remote, createdAt: Date()), in: db)
                lookups.blobWritten(motionHash, state: .remote)
                newRemoteBlob = true
            }
            motion.filename = try RecordRules.filename(given: motion.filename)  // checked already: its last part
            received.motion = motion
        }
        let present = lookups.blobState(hash) == .present
        if present || !isNew { try writes.write(in: db) }  // facts(claimed:) reads attachments; an update must follow the insert it replaces
        (received.mediaType, received.image) = try Self.facts(claimed: received, present: present, in: db)
        received.filename = try RecordRules.filename(given: received.filename)  // checked already: its last part
        var record = AttachmentRecord(received, clock: token.clock)
        record.trashedAt = token.trashedAt
        if isNew { try writes.add(record, in: db) } else { try record.save(db) }
        lookups.attachmentWritten(id, clock: token.clock.rawValue)
        return .applied(newRemoteBlob: newRemoteBlob)
    }

    /// The media type and picture facts an attachment from a peer is recorded with: what this
    /// store found in the bytes when it has them (another attachment shares the blob: a video's
    /// size and playing time are then ffprobe's, never the peer's word), else the peer's claim
    /// when it is a picture type this store reads, else `application/octet-stream` without
    /// facts. The bytes decide once they arrive (``installDownloaded(_:)``).
    private static func facts(claimed: Attachment, present: Bool, in db: any SQLTransaction) throws -> (String, Attachment.ImageInfo?) {
        if present, let known = try AttachmentRecord.heldOriginal(claimed.blobHash, in: db) {
            return (known.mediaType, known.image)
        }
        return MediaTypeSniffer.hasPicture(claimed.mediaType) ? (claimed.mediaType, claimed.image) : ("application/octet-stream", nil)
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
        try await catalog.read { db in Int64(try StoreSetting.value(Self.pullCursorPrefix + peer, in: db) ?? "0") ?? 0 }
    }

    /// Records how far this store has read a peer's change feed.
    package func setSyncCursor(_ sequence: Int64, forPeer peer: String) async throws {
        try await catalog.write { db in try StoreSetting.set(Self.pullCursorPrefix + peer, String(sequence), in: db) }
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
            try StoreSetting.keys(withPrefix: Self.pullCursorPrefix, in: db).map { String($0.dropFirst(Self.pullCursorPrefix.count)) }
        }
    }
}
