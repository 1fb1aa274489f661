import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Moves a note, with its attachments, to the trash: it leaves every list and search, and
    /// cannot be read or changed until it is restored; its originals stay (``collectGarbage(olderThan:dryRun:)``
    /// keeps them). The move is an edit that syncs, so the note goes to the trash on every peer,
    /// and a restore on any peer brings it back on all of them. Purged for good after
    /// ``Configuration/trashRetention``.
    /// - Throws: ``Error/noteNotFound(_:)`` (also for a note already in the trash).
    public func moveNoteToTrash(_ id: NoteID) async throws {
        try await catalog.write(locking: [.note(id)]) { db in
            guard var record = try NoteRecord.fetchLive(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            record.trashedAt = Date()
            record.stampStateChange(self.clock.tick())
            try record.save(db)
        }
    }

    /// Moves one attachment to the trash: it leaves its note's list (the others close up) and
    /// keeps its place for a restore; it can still be read by id, with its original and
    /// thumbnails. Syncs like ``moveNoteToTrash(_:)``.
    /// - Throws: ``Error/attachmentNotFound(_:)`` (also for one already in the trash, or whose note is).
    public func moveAttachmentToTrash(_ id: AttachmentID) async throws {
        try await catalog.write { db in
            guard var record = try AttachmentRecord.fetchLive(id.rawValue, in: db) else { throw Error.attachmentNotFound(id.rawValue) }
            record.trashedAt = Date()
            record.clock = self.clock.tick().rawValue
            try record.update(db)
        }
    }

    /// Everything in the trash, most recently moved there first.
    public func trash() async throws -> [TrashItem] {
        let retention = configuration.trashRetentionInterval
        return try await catalog.read { db in try TrashRecord.items(retention: retention, in: db) }
    }

    /// Takes a note or an attachment out of the trash, as a new edit that syncs: it is back on
    /// every peer, with its attachments and, once asked for, their bytes. An attachment whose
    /// note is in the trash too brings its note back with it. A note comes back with its own
    /// attachments; those moved to the trash on their own stay there.
    /// - Parameter id: a ``TrashItem/id``, whole or a unique prefix of at least 4 characters.
    /// - Returns: what was restored (as the trash listed it).
    /// - Throws: ``Error/notInTrash(_:)``, ``Error/ambiguousIdentifier(prefix:matches:)``.
    @discardableResult
    public func restoreFromTrash(_ id: String) async throws -> TrashItem {
        let (kind, full) = try await resolveTrashItem(id)
        let retention = configuration.trashRetentionInterval
        return try await catalog.write { db in
            guard let item = try TrashRecord.items(retention: retention, id: full, in: db).first else {
                throw Error.notInTrash(id)
            }
            let stamp = self.clock.tick()
            let noteID: String
            switch kind {
            case .note:
                noteID = full
            case .attachment:
                guard var attachment = try AttachmentRecord.fetch(full, in: db) else { throw Error.notInTrash(id) }
                attachment.trashedAt = nil
                attachment.clock = stamp.rawValue
                try attachment.update(db)
                noteID = attachment.noteId
            }
            if var note = try NoteRecord.fetch(noteID, in: db), note.trashedAt != nil {
                note.trashedAt = nil
                note.stampStateChange(stamp)
                try note.save(db)
            }
            return item
        }
    }

    /// Deletes one item of the trash for good, as ``deleteNote(_:)`` or
    /// ``deleteAttachment(_:)`` would: a tombstone tells every peer.
    /// - Parameter id: a ``TrashItem/id``, whole or a unique prefix of at least 4 characters.
    /// - Throws: ``Error/notInTrash(_:)``, ``Error/ambiguousIdentifier(prefix:matches:)``.
    public func purgeFromTrash(_ id: String) async throws {
        let (kind, full) = try await resolveTrashItem(id)
        _ = try await catalog.write { db in try self.purge(notes: kind == .note ? [full] : [], attachments: kind == .attachment ? [full] : [], in: db) }
    }

    /// Deletes for good what is in the trash: all of it, or what went there before `cutoff`.
    /// Tombstones tell every peer; the originals become garbage for `gc`.
    @discardableResult
    public func emptyTrash(trashedBefore cutoff: Date? = nil) async throws -> TrashPurgeReport {
        try await catalog.write { db in
            let due = try TrashRecord.due(before: cutoff, in: db)
            return try self.purge(notes: due.notes, attachments: due.attachments, in: db)
        }
    }

    /// Deletes for good what has been in the trash longer than ``Configuration/trashRetention``:
    /// `attach serve` does it every hour and `gc` before it looks for garbage.
    @discardableResult
    public func purgeExpiredTrash() async throws -> TrashPurgeReport {
        try await emptyTrash(trashedBefore: Date().addingTimeInterval(-configuration.trashRetentionInterval))
    }

    /// Tombstones and deletes `notes` (their attachments go with them) and `attachments`.
    private func purge(notes: [String], attachments: [String], in db: any SQLTransaction) throws -> TrashPurgeReport {
        var report = TrashPurgeReport()
        for id in notes where try NoteRecord.exists(id, in: db) {
            try TombstoneRecord(entity: "note", id: id, clock: clock.tick().rawValue).save(db)
            try NoteRecord.delete(id, in: db)
            report.notes += 1
        }
        for id in attachments where try AttachmentRecord.fetch(id, in: db) != nil {
            try TombstoneRecord(entity: "attachment", id: id, clock: clock.tick().rawValue).save(db)
            try AttachmentRecord.delete(id, in: db)
            report.attachments += 1
        }
        return report
    }

    /// The kind and full identifier of the one item in the trash whose id is `text` or starts with it.
    private func resolveTrashItem(_ text: String) async throws -> (TrashItem.Kind, String) {
        let match = try await resolve(text, notFound: Error.notInTrash) { prefix, db in
            try TrashRecord.ids(startingWith: prefix, limit: 6, in: db).map { (id: $0.1, found: $0.0) }
        }
        return (match.found, match.id)
    }
}
