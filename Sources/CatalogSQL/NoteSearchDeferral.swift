/// Indexing a page of new notes for search at once, in SQLite: FTS5 takes a row from a trigger
/// about nine times slower than the same rows in one statement (a page of 5,000 notes: a third
/// of a first sync's writing went to the per-row trigger). While `noteSearchDeferred` holds row
/// 0, a new note's rowid is collected there instead of indexed; ``finish`` indexes the collected
/// rows with their text as it is then, in one statement, and empties the table. Both run in
/// one transaction, so no reader and no other writer ever sees the table non-empty.
///
/// The update and delete triggers leave a collected row's index alone (it has no entry yet):
/// a peer's page that adds a note and then edits or deletes it (the same note twice, which a
/// hostile peer may send) never asks FTS5 to remove words it does not hold, which would corrupt
/// its index. PostgreSQL's search index (a GIN index of an expression) has no trigger: nothing
/// to defer there.
public enum NoteSearchDeferral {
    /// Starts collecting new notes instead of indexing them (SQLite).
    public static let begin = "INSERT INTO noteSearchDeferred (noteRowid) VALUES (0)"

    /// Indexes the notes collected since ``begin`` and stops collecting (SQLite).
    public static let finish = [
        """
        INSERT INTO note_search (rowid, title, body)
        SELECT note.rowid, note.title, note.body FROM noteSearchDeferred JOIN note ON note.rowid = noteSearchDeferred.noteRowid
        """,
        "DELETE FROM noteSearchDeferred",
    ]

    /// Migration `v20`: the table, and `v7`'s three search triggers made again around it. Each
    /// trigger is one, its statements guarded by `WHERE`: two triggers on one event would fire
    /// in an order of SQLite's choosing, and the second would see what the first changed.
    static func migrationStatements(_ dialect: SQLDialect) -> [String] {
        guard dialect == .sqlite else { return [] }
        let collecting = "EXISTS (SELECT 1 FROM noteSearchDeferred WHERE noteRowid = 0)"
        let collected = "EXISTS (SELECT 1 FROM noteSearchDeferred WHERE noteRowid = old.rowid)"
        let removeOld = "INSERT INTO note_search (note_search, rowid, title, body) SELECT 'delete', old.rowid, old.title, old.body WHERE NOT \(collected)"
        let addNew = "INSERT INTO note_search (rowid, title, body) SELECT new.rowid, new.title, new.body"
        return [
            "CREATE TABLE noteSearchDeferred (noteRowid INTEGER PRIMARY KEY)",
            "DROP TRIGGER note_search_after_insert",
            "DROP TRIGGER note_search_after_delete",
            "DROP TRIGGER note_search_after_update",
            """
            CREATE TRIGGER note_search_after_insert AFTER INSERT ON note BEGIN
                \(addNew) WHERE NOT \(collecting);
                INSERT INTO noteSearchDeferred (noteRowid) SELECT new.rowid WHERE \(collecting);
            END
            """,
            """
            CREATE TRIGGER note_search_after_delete AFTER DELETE ON note BEGIN
                \(removeOld);
                DELETE FROM noteSearchDeferred WHERE noteRowid = old.rowid;
            END
            """,
            // A collected note's update needs nothing: `finish` reads its text as it is then.
            """
            CREATE TRIGGER note_search_after_update AFTER UPDATE OF title, body ON note BEGIN
                \(removeOld);
                \(addNew) WHERE NOT \(collected);
            END
            """,
        ]
    }
}
