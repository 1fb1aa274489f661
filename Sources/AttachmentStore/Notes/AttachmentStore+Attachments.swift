import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Adds the file at `url` to the end of a note's attachments, copying its bytes into the store.
    ///
    /// The bytes are streamed (memory stays bounded whatever the size), hashed, made durable,
    /// and only then referenced. Identical content already in the store is not stored twice.
    /// - Parameters:
    ///   - note: the note that gets the attachment.
    ///   - url: the file to copy; it must be a regular file (or a link to one).
    ///   - filename: the name to show; defaults to the file's own name (mended by
    ///     ``RecordRules/filename(fromFileSystem:)``). A name given is kept to its last `/` part
    ///     and must keep ``RecordRules``.
    ///   - metadata: any string pairs to keep with the attachment.
    ///   - progress: called from a background thread with the bytes copied so far.
    /// - Throws: ``Error/invalidArgument(_:)`` for a given name that breaks ``RecordRules`` (before
    ///   any byte is read), ``Error/noteNotFound(_:)``, ``Error/sourceUnreadable(path:cause:)``,
    ///   ``Error/sourceNotAFile(path:)``, ``Error/writeFailed(path:cause:)``. On any error the
    ///   store is left as it was.
    public func addAttachment(
        to note: NoteID, fromFile url: URL, filename: String? = nil, metadata: [String: String] = [:],
        progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws -> Attachment {
        let name = try filename.map { name throws(Error) in try RecordRules.filename(given: name) }
            ?? RecordRules.filename(fromFileSystem: url.lastPathComponent)
        let blob = try await ingest(.file(url, progress: progress))
        return prefetchingThumbnail(try await insertAttachment(blob, note: note, filename: name, metadata: metadata))
    }

    /// Adds bytes already in memory to the end of a note's attachments.
    /// - Throws: as ``addAttachment(to:fromFile:filename:metadata:progress:)``.
    public func addAttachment(
        to note: NoteID, data: Data, filename: String, metadata: [String: String] = [:]
    ) async throws -> Attachment {
        let name = try RecordRules.filename(given: filename)
        let blob = try await ingest(.data(data))
        return prefetchingThumbnail(try await insertAttachment(blob, note: note, filename: name, metadata: metadata))
    }

    /// Adds bytes that arrive as an asynchronous sequence of chunks (an upload, a pipe).
    ///
    /// Memory stays bounded by one chunk of about 1 MiB. If the sequence throws or the task is
    /// cancelled, nothing is stored.
    /// - Throws: as ``addAttachment(to:fromFile:filename:metadata:progress:)``, or what `bytes` throws.
    public func addAttachment<Bytes: AsyncSequence>(
        to note: NoteID, bytes: Bytes, filename: String, metadata: [String: String] = [:]
    ) async throws -> Attachment where Bytes.Element: DataProtocol {
        let name = try RecordRules.filename(given: filename)
        let blob = try await ingest(bytes: bytes)
        return prefetchingThumbnail(try await insertAttachment(blob, note: note, filename: name, metadata: metadata))
    }

    /// Adds an ingested blob at the end of `note` as a new attachment (with identifier `id`, when
    /// the caller chose one).
    func insertAttachment(
        _ blob: IngestedBlob, note: NoteID, filename: String, metadata: [String: String], id: AttachmentID = .make()
    ) async throws -> Attachment {
        try await committing(blob, into: note) { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            try self.commit(blob, in: db)
            return try self.insertRecord(for: blob, note: note, filename: filename, metadata: metadata, id: id,
                                         position: try AttachmentRecord.nextPosition(inNote: note.rawValue, in: db), in: db)
        }
    }

    /// Inserts the row of a new attachment of `blob` (already installed) at `position` of `note`,
    /// named `filename` (already checked against ``RecordRules``). Call inside a catalog write
    /// transaction.
    func insertRecord(for blob: IngestedBlob, note: NoteID, filename: String, metadata: [String: String], id: AttachmentID,
                      position: Int, in db: any SQLTransaction) throws -> Attachment {
        try insertRecord(of: blob.facts, note: note, filename: filename, metadata: metadata, id: id, position: position, in: db)
    }

    /// Inserts the row of a new attachment whose original `facts` describe (its bytes installed
    /// and recorded present) at `position` of `note`. Call inside a catalog write transaction.
    /// When the bytes are one half of a Live Photo whose other half is in the note already, the
    /// other half's row is replaced by one for both (``joinLivePhoto(_:id:filename:metadata:note:in:)``).
    func insertRecord(of facts: OriginalFacts, note: NoteID, filename: String, metadata: [String: String], id: AttachmentID,
                      position: Int, in db: any SQLTransaction) throws -> Attachment {
        if let joined = try joinLivePhoto(facts, id: id, filename: filename, metadata: metadata, note: note, in: db) { return joined }
        let now = Date()
        var record = AttachmentRecord(
            id: id.rawValue, noteId: note.rawValue, position: position,
            blobHash: facts.hash.rawValue, mediaType: facts.mediaType,
            filename: filename, image: facts.image, metadata: metadata, createdAt: now, updatedAt: now,
            clock: clock.tick().rawValue
        )
        record.contentIdentifier = facts.contentIdentifier
        try record.insert(db)
        return try AttachmentRow(attachment: record, byteCount: facts.byteCount, state: .present).value
    }

    /// Replaces an attachment's bytes with the file at `url`; its id, note, position and metadata
    /// stay. The old blob becomes garbage for `gc` unless something else references it.
    /// - Throws: ``Error/attachmentNotFound(_:)`` (also for one in the trash) and the errors of adding.
    public func replaceAttachmentData(_ id: AttachmentID, fromFile url: URL) async throws -> Attachment {
        let name = RecordRules.filename(fromFileSystem: url.lastPathComponent)
        return try await replace(id, with: try await ingest(.file(url, progress: nil)), filename: name)
    }

    /// Replaces an attachment's bytes with `data`, and its name with `filename` when one is given.
    /// - Throws: ``Error/attachmentNotFound(_:)`` and the errors of adding.
    public func replaceAttachmentData(_ id: AttachmentID, data: Data, filename: String? = nil) async throws -> Attachment {
        let name = try filename.map { name throws(Error) in try RecordRules.filename(given: name) }
        return try await replace(id, with: try await ingest(.data(data)), filename: name)
    }

    /// Replaces an attachment's bytes with an asynchronous sequence of chunks.
    /// - Throws: ``Error/attachmentNotFound(_:)``, the errors of adding, or what `bytes` throws.
    public func replaceAttachmentData<Bytes: AsyncSequence>(
        _ id: AttachmentID, bytes: Bytes, filename: String? = nil
    ) async throws -> Attachment where Bytes.Element: DataProtocol {
        let name = try filename.map { name throws(Error) in try RecordRules.filename(given: name) }
        return try await replace(id, with: try await ingest(bytes: bytes), filename: name)
    }

    private func replace(_ id: AttachmentID, with blob: IngestedBlob, filename: String?) async throws -> Attachment {
        prefetchingThumbnail(try await committing(blob) { db in
            guard var record = try AttachmentRecord.fetchLive(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            try self.commit(blob, in: db)
            record.blobHash = blob.staged.hash.rawValue
            record.mediaType = blob.mediaType
            record.image = blob.image
            // Other bytes are no longer the still of a Live Photo: its clip goes with the old ones.
            record.record(motion: nil)
            record.contentIdentifier = blob.contentIdentifier
            if let filename { record.filename = filename }
            record.updatedAt = Date()
            record.clock = self.clock.tick().rawValue
            try record.update(db)
            return try AttachmentRow(attachment: record, byteCount: blob.staged.byteCount, state: .present).value
        })
    }

    /// Deletes an attachment for good, from the trash or not: a tombstone tells every peer, and
    /// its blob becomes garbage for `gc` unless something else references it. Its note stays;
    /// later attachments move up one position. To delete the way people do, with an undo on
    /// every peer, use ``moveAttachmentToTrash(_:)``.
    /// - Throws: ``Error/attachmentNotFound(_:)``.
    public func deleteAttachment(_ id: AttachmentID) async throws {
        try await catalog.write { db in
            guard let record = try AttachmentRecord.fetch(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            let stamp = self.clock.tick()
            try TombstoneRecord(entity: "attachment", id: record.id, clock: stamp.rawValue).save(db)
            try AttachmentRecord.delete(record.id, in: db)
            try AttachmentRecord.renumber(inNote: record.noteId, clock: stamp, in: db)
        }
    }

    /// Moves an attachment to `position` among its note's attachments (clamped to the valid
    /// range). The note's positions are made `0..<count` first (see ``attachments(of:)``), and
    /// every attachment whose position changes is stamped, so the new order syncs.
    /// - Throws: ``Error/attachmentNotFound(_:)`` (also for one in the trash).
    public func moveAttachment(_ id: AttachmentID, to position: Int) async throws {
        try await catalog.write { db in
            guard let found = try AttachmentRecord.fetchLive(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            let count = try AttachmentRecord.count(inNote: found.noteId, in: db)
            let target = min(max(position, 0), count - 1)
            guard target != (try AttachmentRecord.rank(of: found, in: db)) else { return }
            try AttachmentRecord.move(found, toRank: target, stamp: self.clock.tick(), in: db)
        }
    }

    /// Sets the alt text of an attachment (what a screen reader says for it; the web UI shows
    /// it as the picture's description), or removes it for `nil` or an empty text. Kept in its
    /// metadata under ``RecordRules/altTextKey`` and stamped, so it syncs.
    /// - Throws: ``Error/attachmentNotFound(_:)`` (also for one in the trash),
    ///   ``Error/invalidArgument(_:)`` when the text breaks ``RecordRules/problem(altText:)`` or
    ///   the metadata would pass what peers accept (``PeerInputLimits``).
    public func setAltText(_ id: AttachmentID, to text: String?) async throws {
        let text = text?.trimmingCharacters(in: .whitespaces)
        if let text, let problem = RecordRules.problem(altText: text) { throw Error.invalidArgument(problem) }
        try await catalog.write { db in
            guard var record = try AttachmentRecord.fetchLive(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            var metadata = record.metadata
            metadata[RecordRules.altTextKey] = text?.isEmpty == false ? text : nil
            let limits = PeerInputLimits()
            let bytes = metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            guard metadata.count <= limits.maxMetadataEntries, bytes <= limits.maxMetadataBytes else {
                throw Error.invalidArgument("alt: the attachment's metadata would be more than peers accept (\(limits.maxMetadataEntries) entries, \(limits.maxMetadataBytes) bytes)")
            }
            record.metadata = metadata
            record.clock = self.clock.tick().rawValue
            try record.update(db)
        }
    }

    /// Moves an attachment to another note, as its last; the attachments after it in its old
    /// note move up one. Its bytes, id, metadata and thumbnails stay. The move is an edit
    /// (stamped, so it syncs: every peer sees the attachment in its new note). Moving it to the
    /// note it is in changes nothing.
    /// - Throws: ``Error/attachmentNotFound(_:)`` (also for one in the trash),
    ///   ``Error/noteNotFound(_:)`` for a target note that does not exist or is in the trash.
    public func moveAttachment(_ id: AttachmentID, toNote note: NoteID) async throws {
        try await catalog.write { db in
            guard var record = try AttachmentRecord.fetchLive(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            let source = record.noteId
            guard source != note.rawValue else { return }
            let stamp = self.clock.tick()
            record.noteId = note.rawValue
            record.position = try AttachmentRecord.nextPosition(inNote: note.rawValue, in: db)
            record.clock = stamp.rawValue
            try record.update(db)
            try AttachmentRecord.renumber(inNote: source, clock: stamp, in: db)
        }
    }

    /// The attachment with `id`. One in the trash (on its own or with its note) can still be
    /// read, with its original and thumbnails, until it is purged; it is in no note's list.
    /// - Throws: ``Error/attachmentNotFound(_:)``.
    public func attachment(_ id: AttachmentID) async throws -> Attachment {
        let found = try await catalog.read { db in
            guard let row = try AttachmentRow.fetch(id.rawValue, in: db) else {
                throw Error.attachmentNotFound(id.rawValue)
            }
            return try AttachmentRow.ranked([row], firstRank: try AttachmentRecord.rank(of: row.attachment, in: db))[0]
        }
        return try await withTransfersInFlight([found])[0]
    }

    /// A note's attachments in order, each reporting its place in it (`0..<count`) as its
    /// position.
    ///
    /// The order is the same on every peer that holds the same records: by stored position,
    /// then by id. Adds or moves made concurrently on different peers can leave two attachments
    /// at one stored position; the id decides between them, and they still report different
    /// positions. The next local change to the note's order makes its stored positions
    /// `0..<count` again (and syncs). Attachments in the trash are not in the list.
    /// - Throws: ``Error/noteNotFound(_:)`` (also for a note in the trash).
    public func attachments(of note: NoteID) async throws -> [Attachment] {
        try await withTransfersInFlight(try await catalog.read { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            return try AttachmentRow.ranked(AttachmentRow.inOrder(ofNote: note.rawValue, in: db))
        })
    }

    /// A page of a note's attachments in order: at most `limit`, after the one at position
    /// `position` (as ``attachments(of:)`` reports positions; `nil` for the first page). Read
    /// off the `(noteId, position, id)` index.
    /// - Throws: ``Error/noteNotFound(_:)``.
    public func attachments(of note: NoteID, after position: Int?, limit: Int) async throws -> [Attachment] {
        try await withTransfersInFlight(try await catalog.read { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            guard let position, position >= 0 else {
                return try AttachmentRow.ranked(AttachmentRow.inOrder(ofNote: note.rawValue, limit: max(0, limit), in: db))
            }
            guard let last = try AttachmentRecord.key(atRank: position, inNote: note.rawValue, in: db) else { return [] }
            return try AttachmentRow.ranked(AttachmentRow.inOrder(ofNote: note.rawValue, after: last, limit: max(0, limit), in: db),
                                            firstRank: position + 1)
        })
    }

    /// How many attachments the note has (not counting those in the trash), counted off the
    /// `(noteId, position)` index without reading them.
    /// - Throws: ``Error/noteNotFound(_:)`` (also for a note in the trash).
    public func attachmentCount(of note: NoteID) async throws -> Int {
        try await catalog.read { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            return try AttachmentRecord.count(inNote: note.rawValue, in: db)
        }
    }

    /// Every attachment in the store outside the trash, grouped by note and in order within each note.
    public func allAttachments() async throws -> [Attachment] {
        try await withTransfersInFlight(try await catalog.read { db in
            try AttachmentRow.ranked(AttachmentRow.allOutsideTrash(in: db))
        })
    }

    /// Every attachment outside the trash whose bytes are in `state`, grouped by note and in order within each note.
    public func attachments(in state: Attachment.State) async throws -> [Attachment] {
        try await allAttachments().filter { $0.state == state }
    }

    /// The attachment whose identifier is `text` or starts with it (at least 4 characters).
    /// - Throws: ``Error/attachmentNotFound(_:)``, ``Error/ambiguousIdentifier(prefix:matches:)``.
    public func resolveAttachmentID(_ text: String) async throws -> AttachmentID {
        AttachmentID(rawValue: try await resolve(text, table: .attachment, notFound: Error.attachmentNotFound))
    }
}
