import CatalogSQL
import Foundation

/// The `noteVersion` table: each note's earlier versions, newest first, at most
/// ``maxVersionsPerNote`` of them.
enum NoteVersionRecord {
    /// The most earlier versions a note keeps; the oldest go first.
    static let maxVersionsPerNote = 20

    /// The columns a kept version is written with, each taken from the note's row as it was.
    static let columns = SQLColumns<NoteRecord>(table: "noteVersion", key: ["noteId", "clock"], [
        .init("noteId") { .text($0.id) },
        .init("clock") { .text($0.clock) },
        .init("title") { .text($0.title) },
        .init("body") { .text($0.body) },
        .init("updatedAt") { .date($0.updatedAt) },
        .init("versions") { .text($0.effectiveVersions.json) },
    ])

    /// Keeps `old` as an earlier version of its note when `new` replaces its title or body. The
    /// placeholder of a note whose own change had not arrived yet (no clock) is not kept; an
    /// empty version is kept (a merge may need it as its base) but never listed.
    static func keep(_ old: NoteRecord, replacedBy new: NoteRecord, in db: any SQLTransaction) throws {
        guard old.title != new.title || old.body != new.body, !old.clock.isEmpty else { return }
        try db.execute(columns.insertIfAbsent, columns.arguments(of: old))
        try db.execute("""
            DELETE FROM noteVersion WHERE noteId = ? AND clock NOT IN
                (SELECT clock FROM noteVersion WHERE noteId = ? ORDER BY clock DESC LIMIT ?)
            """, [.text(old.id), .text(old.id), .integer(Int64(maxVersionsPerNote))])
    }

    /// The earlier versions of the note `id`, newest first.
    static func all(ofNote id: String, in db: any SQLTransaction) throws -> [NoteVersion] {
        try db.query("SELECT * FROM noteVersion WHERE noteId = ? AND NOT (title = '' AND body = '') ORDER BY clock DESC", [.text(id)])
            .map(version(row:))
    }

    /// One earlier version of the note `id`, if it is kept.
    static func fetch(ofNote id: String, version: String, in db: any SQLTransaction) throws -> NoteVersion? {
        try db.queryOne("SELECT * FROM noteVersion WHERE noteId = ? AND clock = ?", [.text(id), .text(version)]).map(version(row:))
    }

    /// The newest earlier version of the note `id` whose edits are all among `shared` (the edits
    /// two concurrent versions both include): the text both were made from. Moves to and from the
    /// trash change no text and keep no version, so the newest such version holds the shared text.
    static func base(ofNote id: String, shared: VersionVector, in db: any SQLTransaction) throws -> (title: String, body: String)? {
        for row in try db.query("SELECT title, body, versions FROM noteVersion WHERE noteId = ? ORDER BY clock DESC", [.text(id)]) {
            let relation = try NoteRecord.versions(try row.requiredString("versions")).relation(to: shared)
            if relation == .same || relation == .older { return (try row.requiredString("title"), try row.requiredString("body")) }
        }
        return nil
    }

    private static func version(row: SQLRow) throws -> NoteVersion {
        NoteVersion(noteID: NoteID(rawValue: try row.requiredString("noteId")), version: try row.requiredString("clock"),
                    title: try row.requiredString("title"), body: try row.requiredString("body"), updatedAt: try row.requiredDate("updatedAt"))
    }
}
