import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Creates a note.
    ///
    /// ```swift
    /// let note = try await store.createNote(title: "Garden", body: "Spring 2026")
    /// ```
    /// - Throws: ``Error/invalidArgument(_:)`` naming the field when the title or body breaks
    ///   ``RecordRules`` (a line break in the title, more than 4 KiB of title or 1 MiB of body).
    public func createNote(title: String, body: String = "") async throws -> Note {
        try Self.check(title: title, body: body)
        let now = Date()
        let note = Note(id: .make(), title: title, body: body, createdAt: now, updatedAt: now)
        var record = NoteRecord(note)
        record.stamp(clock.tick())
        try await catalog.write(locking: [.note(note.id)]) { [record] db in try record.insert(db) }
        return note
    }

    /// Changes a note's title and/or body; `nil` leaves a field as it is.
    /// - Throws: ``Error/invalidArgument(_:)`` when a field given breaks ``RecordRules``;
    ///   ``Error/noteNotFound(_:)`` (also for a note in the trash: restore it first).
    public func updateNote(_ id: NoteID, title: String? = nil, body: String? = nil) async throws -> Note {
        try Self.check(title: title, body: body)
        return try await catalog.write(locking: [.note(id)]) { db in
            guard let old = try NoteRecord.fetchLive(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            var record = old
            if let title { record.title = title }
            if let body { record.body = body }
            record.updatedAt = Date()
            record.stamp(self.clock.tick())
            try NoteVersionRecord.keep(old, replacedBy: record, in: db)
            try record.save(db)
            return record.note
        }
    }

    /// Deletes a note for good, from the trash or not, and with it all of its attachments: a
    /// tombstone tells every peer, and their blobs become garbage for `gc` unless something else
    /// references them. To delete the way people do, with an undo on every peer, use
    /// ``moveNoteToTrash(_:)``.
    /// - Throws: ``Error/noteNotFound(_:)``.
    public func deleteNote(_ id: NoteID) async throws {
        try await catalog.write { db in
            guard try NoteRecord.exists(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            try TombstoneRecord(entity: "note", id: id.rawValue, clock: self.clock.tick().rawValue).save(db)
            try NoteRecord.delete(id.rawValue, in: db)
        }
    }

    /// The note with `id`.
    /// - Throws: ``Error/noteNotFound(_:)`` (also for a note in the trash: see ``trash()``).
    public func note(_ id: NoteID) async throws -> Note {
        try await catalog.read { db in
            guard let record = try NoteRecord.fetchLive(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            return record.note
        }
    }

    /// Notes in `order` (most recently changed first unless told otherwise; ties by id), paged by
    /// `limit` and `offset`; with `text`, only those it finds: each of its words begins a word of
    /// the note's title or body, in any case (`gard pho` finds "Garden photos"; punctuation only
    /// separates words, and a text with no word finds nothing). The search is answered by the
    /// catalog's full-text index, each order by an index of its own. For deep pages, prefer
    /// ``notes(matching:limit:offset:after:)`` with the ``NoteCursor`` of the last note shown.
    public func notes(matching text: String? = nil, order: NoteOrder = .updated, limit: Int = 100, offset: Int = 0) async throws -> [Note] {
        let dialect = catalog.database.dialect
        return try await catalog.read { db in
            try NoteRecord.page(matching: text, order: order, limit: limit, offset: offset, dialect: dialect, in: db).map(\.note)
        }
    }

    /// The notes after `cursor` in its order (skipping `offset` more), optionally only those
    /// `text` finds (as in ``notes(matching:order:limit:offset:)``): the next page after one that
    /// ended with the note `cursor` names. A page read this way costs the same however deep it is.
    public func notes(matching text: String? = nil, limit: Int = 100, offset: Int = 0, after cursor: NoteCursor) async throws -> [Note] {
        let dialect = catalog.database.dialect
        return try await catalog.read { db in
            try NoteRecord.page(matching: text, order: cursor.order, limit: limit, offset: offset, after: cursor, dialect: dialect, in: db)
                .map(\.note)
        }
    }

    /// The note whose identifier is `text` or starts with it (at least 4 characters).
    /// - Throws: ``Error/noteNotFound(_:)``, ``Error/ambiguousIdentifier(prefix:matches:)``.
    public func resolveNoteID(_ text: String) async throws -> NoteID {
        NoteID(rawValue: try await resolve(text, table: .note, notFound: Error.noteNotFound))
    }

    /// Finds the one id in `table` equal to or starting with `text`.
    func resolve(_ text: String, table: IdentifierPrefix.Table, notFound: @escaping @Sendable (String) -> Error) async throws -> String {
        try await resolve(text, notFound: notFound) { prefix, db in
            try IdentifierPrefix.ids(in: table, startingWith: prefix, limit: 6, in: db).map { ($0, ()) }
        }.id
    }

    /// Finds the one candidate whose id is `text` or starts with it (at least 4 characters of
    /// hexadecimal digits and dashes, in any case), with what `candidates` found beside it.
    /// - Parameter candidates: the ids starting with a lowercased prefix, a few at most.
    /// - Throws: `notFound(text)`; ``Error/ambiguousIdentifier(prefix:matches:)``.
    func resolve<Found: Sendable>(
        _ text: String, notFound: @escaping @Sendable (String) -> Error,
        candidates: @escaping @Sendable (String, any SQLTransaction) throws -> [(id: String, found: Found)]
    ) async throws -> (id: String, found: Found) {
        let prefix = text.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw notFound(text) }
        let matches = try await catalog.read { db in try candidates(prefix, db) }
        if let exact = matches.first(where: { $0.id == prefix }) { return exact }
        switch matches.count {
        case 0: throw notFound(text)
        case 1: return matches[0]
        default: throw Error.ambiguousIdentifier(prefix: text, matches: matches.map(\.id))
        }
    }

    /// Refuses a title or body (those given) that breaks ``RecordRules``, before anything is written.
    private static func check(title: String?, body: String?) throws(Error) {
        if let problem = title.flatMap(RecordRules.problem(title:)) ?? body.flatMap(RecordRules.problem(body:)) {
            throw .invalidArgument(problem)
        }
    }
}
