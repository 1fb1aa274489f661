import Foundation

extension AttachmentStore {
    /// The earlier versions of a note, newest first: what each edit replaced (this store's own
    /// edits, and a peer's newer edit that replaced text written here), at most
    /// 20 of them. The current title and body are the note itself.
    /// - Throws: ``Error/noteNotFound(_:)``.
    public func noteVersions(of id: NoteID) async throws -> [NoteVersion] {
        try await catalog.read { db in
            guard try NoteRecord.isLive(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            return try NoteVersionRecord.all(ofNote: id.rawValue, in: db)
        }
    }

    /// Makes an earlier version the note's title and body again, as a new edit: it syncs like
    /// any other, and the text it replaces becomes an earlier version in turn.
    /// - Parameters:
    ///   - id: the note.
    ///   - version: ``NoteVersion/version``, as ``noteVersions(of:)`` lists it.
    /// - Throws: ``Error/noteNotFound(_:)``; ``Error/invalidArgument(_:)`` when no such version is kept.
    @discardableResult
    public func restoreNoteVersion(_ id: NoteID, version: String) async throws -> Note {
        let kept = try await catalog.read { db in
            guard try NoteRecord.isLive(id.rawValue, in: db) else { throw Error.noteNotFound(id.rawValue) }
            return try NoteVersionRecord.fetch(ofNote: id.rawValue, version: version, in: db)
        }
        guard let kept else { throw Error.invalidArgument("note \(id) keeps no version \(version); list them with its history") }
        return try await updateNote(id, title: kept.title, body: kept.body)
    }
}
