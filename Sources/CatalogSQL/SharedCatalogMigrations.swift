/// The catalog's migrations from `v6` on, written once for both catalogs: each is SQL that
/// SQLite and PostgreSQL both run, with any difference between them decided here, by dialect,
/// and nowhere else. The SQLite schema (`CatalogSchema`) and the PostgreSQL one
/// (`PostgresCatalogSchema`) append these, in order, after their own `v1`…`v5`.
///
/// Append-only, like every migration: a released one is never edited.
public enum SharedCatalogMigrations {
    /// One migration: its id (the same in both catalogs) and its statements for a dialect, each
    /// sent on its own.
    public struct Migration: Sendable {
        /// The id recorded in the catalog once applied.
        public let id: String
        /// The statements for `dialect`.
        public let statements: @Sendable (SQLDialect) -> [String]
        /// What rows already in the catalog the migration will not apply over, as the message of
        /// each (empty: none); the runner calls ``refuseDamage(in:_:)`` before the statements.
        let damage: @Sendable (any SQLTransaction, SQLDialect) throws -> [String]
        /// What the migration writes into rows already there once its statements ran (values
        /// computed in Swift, which no SQL both catalogs share could compute); the runner calls
        /// ``fill(in:_:)`` after the statements, in their transaction.
        let fillRows: @Sendable (any SQLTransaction, SQLDialect) throws -> Void

        init(id: String, damage: @escaping @Sendable (any SQLTransaction, SQLDialect) throws -> [String] = { _, _ in [] },
             fill: @escaping @Sendable (any SQLTransaction, SQLDialect) throws -> Void = { _, _ in },
             statements: @escaping @Sendable (SQLDialect) -> [String]) {
            self.id = id
            self.damage = damage
            self.fillRows = fill
            self.statements = statements
        }

        /// Writes what the migration derives into the rows already in the catalog; run after
        /// ``statements``, in the same transaction.
        /// - Throws: ``SQLDatabaseError``; the runner's transaction then rolls the migration back.
        public func fill(in transaction: any SQLTransaction, _ dialect: SQLDialect) throws {
            try fillRows(transaction, dialect)
        }

        /// Throws, changing nothing, when the catalog holds rows this migration must not apply
        /// over (``BlobHashColumns`` for `v10`).
        /// - Throws: ``SQLDatabaseError`` `.corrupt` naming the first rows and the migration; the
        ///   runner's transaction then rolls the migration back (SQLite keeps the migrations
        ///   before it, each committed on its own; PostgreSQL applies all or none).
        public func refuseDamage(in transaction: any SQLTransaction, _ dialect: SQLDialect) throws {
            let found = try damage(transaction, dialect)
            guard let first = found.first else { return }
            let more = found.count > 1 ? " (and \(found.count - 1) more such rows)" : ""
            throw SQLDatabaseError(.corrupt, "\(first)\(more); migration \"\(id)\" was not applied over it")
        }
    }

    /// PostgreSQL's words of a note, as migration `v7` indexes them: a search must write this
    /// expression exactly for the index to serve it. Everything but letters and digits becomes a
    /// space first, so PostgreSQL's words are SQLite's (its parser would read `INV-100` as `inv`
    /// and the number `-100`, and an address as one word).
    public static let noteSearchVector =
        "to_tsvector('simple'::regconfig, regexp_replace(title || ' ' || body, '[^[:alnum:]]+', ' ', 'g'))"

    /// Every shared migration, in order.
    public static let all: [Migration] = [
        Migration(id: "v6: notes listed by last change without sorting") { _ in
            // `ORDER BY updatedAt DESC, id` (every page of notes) reads this index in order, so a
            // page costs its own rows, not the whole table's sort.
            ["CREATE INDEX note_on_updatedAt_id ON note(updatedAt DESC, id)"]
        },
        Migration(id: "v7: notes searched through a full-text index") { dialect in
            switch dialect {
            case .sqlite:
                // An FTS5 index over the note table's own text (external content: nothing is
                // stored twice), kept current by triggers, keyed by the note's rowid, which
                // SQLite renumbers only in a VACUUM (the store runs none).
                [
                    """
                    CREATE VIRTUAL TABLE note_search USING fts5(
                        title, body, content = 'note', content_rowid = 'rowid',
                        tokenize = 'unicode61 remove_diacritics 0')
                    """,
                    """
                    CREATE TRIGGER note_search_after_insert AFTER INSERT ON note BEGIN
                        INSERT INTO note_search (rowid, title, body) VALUES (new.rowid, new.title, new.body);
                    END
                    """,
                    """
                    CREATE TRIGGER note_search_after_delete AFTER DELETE ON note BEGIN
                        INSERT INTO note_search (note_search, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
                    END
                    """,
                    """
                    CREATE TRIGGER note_search_after_update AFTER UPDATE OF title, body ON note BEGIN
                        INSERT INTO note_search (note_search, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
                        INSERT INTO note_search (rowid, title, body) VALUES (new.rowid, new.title, new.body);
                    END
                    """,
                    "INSERT INTO note_search (note_search) VALUES ('rebuild')",
                ]
            case .postgres:
                // A GIN index over the words of title and body; a search names the same
                // expression (``noteSearchVector``), so the planner uses it.
                ["CREATE INDEX note_search ON note USING GIN (\(noteSearchVector))"]
            }
        },
        Migration(id: "v8: the latest clock found without a scan") { _ in
            // Opening a store reads the newest clock of every note, attachment and tombstone
            // (the hybrid clock starts after it); with these indexes that is three index
            // look-ups, not three table scans that grow with the store.
            [
                "CREATE INDEX note_on_clock ON note(clock)",
                "CREATE INDEX attachment_on_clock ON attachment(clock)",
                "CREATE INDEX tombstone_on_clock ON tombstone(clock)",
            ]
        },
        Migration(id: "v9: the change feed drawn at commit, for writers side by side") { dialect in
            switch dialect {
            case .sqlite:
                // SQLite runs one writer at a time, so its feed already commits in `seq` order.
                []
            case .postgres:
                // Writers of different notes and blobs now run side by side, so a `seq` drawn
                // mid-transaction could commit after a larger one a reader has already passed.
                // The feed's triggers move to `COMMIT` (deferred constraint triggers) and take
                // the feed's advisory lock first, which is held until the commit is visible:
                // `seq` values are drawn and committed one transaction at a time, in order.
                ["note", "attachment", "tombstone"].flatMap { table in
                    ["DROP TRIGGER \(table)_insert_feeds_change ON \(table)",
                     "DROP TRIGGER \(table)_update_feeds_change ON \(table)",
                     postgresFeedFunction(table: table)]
                    + ["INSERT", "UPDATE"].map { event in
                        """
                        CREATE CONSTRAINT TRIGGER \(table)_\(event.lowercased())_feeds_change AFTER \(event) ON \(table)
                            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(table)_feeds_change()
                        """
                    }
                }
            }
        },
        Migration(id: "v10: a blob hash is 64 lowercase hexadecimal digits in every column", damage: { transaction, dialect in
            // A hash is a file's name: one a tampered catalog or backup holds (`../../.bashrc`)
            // must never pass. A row already here that is not a hash is refused, not carried over:
            // the migration fails naming it, so nothing opens the catalog to act on it.
            try BlobHashColumns.malformed(BlobHashColumns.v10, in: transaction, dialect, limit: 10).map(\.description)
        }) { dialect in
            BlobHashColumns.v10.flatMap { BlobHashColumns.checkStatements($0, dialect) }
        },
        Migration(id: "v11: earlier versions of notes kept") { _ in
            // A note's earlier titles and bodies: the version an edit (local, or a peer's that
            // won) replaced, keyed by the clock stamp it had. Not part of the change feed: each
            // store keeps the versions it saw replaced. They go with their note.
            [
                """
                CREATE TABLE noteVersion (
                    noteId TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
                    clock TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    updatedAt TEXT NOT NULL,
                    PRIMARY KEY (noteId, clock)
                )
                """,
            ]
        },
        Migration(id: "v12: a note's attachments in one order on every peer") { _ in
            // The order is position, then id (concurrent adds on two peers can share a
            // position): this index reads it without a sort, pages included.
            ["CREATE INDEX attachment_on_noteId_position_id ON attachment(noteId, position, id)"]
        },
        Migration(id: "v13: a trash that travels") { _ in
            // A note or attachment in the trash keeps its row, with the time it went there: the
            // state syncs like any edit (a later restore wins over the trash, and the other way
            // round) until a purge turns it into a tombstone. Only the few rows in the trash are
            // indexed, for the trash's own list and its purge.
            [
                "ALTER TABLE note ADD COLUMN trashedAt TEXT",
                "ALTER TABLE attachment ADD COLUMN trashedAt TEXT",
                "CREATE INDEX note_in_trash ON note(trashedAt) WHERE trashedAt IS NOT NULL",
                "CREATE INDEX attachment_in_trash ON attachment(trashedAt) WHERE trashedAt IS NOT NULL",
            ]
        },
        Migration(id: "v14: each version of a note knows the edits it includes") { _ in
            // A note's version vector (`{peer id: clock stamp}` as JSON): whether a peer's version
            // replaces ours or was made beside it, to be merged. An earlier version keeps its own,
            // so that a merge finds the base both versions were made from.
            [
                "ALTER TABLE note ADD COLUMN versions TEXT NOT NULL DEFAULT '{}'",
                "ALTER TABLE noteVersion ADD COLUMN versions TEXT NOT NULL DEFAULT '{}'",
            ]
        },
        Migration(id: "v15: login sessions every server of a store shares") { _ in
            // A browser's session, by the SHA-256 of its cookie's key (a copy of the catalog opens
            // no session), so that several servers behind a load balancer accept one login. Not
            // part of the change feed: sessions belong to this store's servers, not to its peers.
            [
                "CREATE TABLE loginSession (keyHash TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, expiresAt TEXT)",
                "CREATE INDEX loginSession_on_expiresAt ON loginSession(expiresAt) WHERE expiresAt IS NOT NULL",
            ]
        },
        Migration(id: "v16: resumable uploads every server of a store shares") { dialect in
            // A resumable upload of a store whose originals live in an object store: what it is
            // for, and its single writer's lease (a request on any server holds it while it
            // receives bytes, renewing it; a crashed server's lease runs out). Its bytes are
            // pieces in the object store, each named by its content hash like any blob, listed
            // here in order. Not part of the change feed, not backed up: uploads belong to the
            // store's servers, not to its peers.
            [
                """
                CREATE TABLE resumableUpload (
                    id TEXT PRIMARY KEY NOT NULL,
                    description TEXT NOT NULL,
                    byteCount INTEGER NOT NULL CHECK (byteCount > 0),
                    createdAt TEXT NOT NULL,
                    lastActivityAt TEXT NOT NULL,
                    expiresAt TEXT NOT NULL,
                    finishedAt TEXT,
                    writer TEXT,
                    writerExpiresAt TEXT
                )
                """,
                "CREATE INDEX resumableUpload_on_expiresAt ON resumableUpload(expiresAt)",
                """
                CREATE TABLE resumableUploadPart (
                    upload TEXT NOT NULL REFERENCES resumableUpload(id) ON DELETE CASCADE,
                    startsAt INTEGER NOT NULL CHECK (startsAt >= 0),
                    byteCount INTEGER NOT NULL CHECK (byteCount > 0),
                    hash TEXT NOT NULL CHECK (NOT \(BlobHashColumns.isMalformed("hash", dialect))),
                    PRIMARY KEY (upload, startsAt)
                )
                """,
                "CREATE INDEX resumableUploadPart_on_hash ON resumableUploadPart(hash)",
            ]
        },
        Migration(id: "v17: a silent upload's writer hands its lock over") { _ in
            // Another request's ask, from any server, that an upload's writer stop once its bytes
            // stopped arriving (its client's link died silently), so the client resumes at once
            // instead of waiting for the dead connection to time out.
            ["ALTER TABLE resumableUpload ADD COLUMN handoverRequestedAt TEXT"]
        },
        Migration(id: "v18: notes listed by creation or by title without sorting", fill: fillNoteTitleKeys) { dialect in
            // A note's title as it sorts (``NoteTitleSortKey``, computed when the row is written),
            // compared byte by byte in both catalogs; an index for each order a list may take.
            [
                "ALTER TABLE note ADD COLUMN titleKey TEXT\(dialect == .postgres ? " COLLATE \"C\"" : "") NOT NULL DEFAULT '\(NoteTitleSortKey.untitled)'",
                "CREATE INDEX note_on_createdAt_id ON note(createdAt DESC, id)",
                "CREATE INDEX note_on_titleKey_id ON note(titleKey, id)",
            ]
        },
        Migration(id: "v19: statistics kept as the catalog changes, unreferenced blobs found without a scan") { dialect in
            // ``CatalogTally``: the figures of `attach stats` and each blob's reference count,
            // kept by triggers, so neither `stats` nor `gc` reads the whole catalog.
            CatalogTally.migrationStatements(dialect)
        },
        Migration(id: "v20: a page of new notes indexed for search at once") { dialect in
            // ``NoteSearchDeferral``: SQLite's search triggers can collect a page's new notes
            // and index them in one statement. Nothing in PostgreSQL.
            NoteSearchDeferral.migrationStatements(dialect)
        },
        Migration(id: "v21: a video's playing time, a document's pages") { dialect in
            // Read at import by ffprobe or pdfinfo (or sent by the peer whose record brought it,
            // until the bytes arrive): milliseconds, pages; NULL for anything else.
            ["ALTER TABLE attachment ADD COLUMN durationMilliseconds \(dialect == .postgres ? "BIGINT" : "INTEGER")",
             "ALTER TABLE attachment ADD COLUMN pageCount \(dialect == .postgres ? "BIGINT" : "INTEGER")"]
        },
        Migration(id: "v22: a Live Photo, a still and its clip, is one attachment; a motion photo's clip") { dialect in
            // The clip is the attachment's second original: its hash (a reference like
            // `blobHash`, checked and counted the same way), type, name and playing time; NULL
            // for every other attachment. `contentIdentifier` is the identifier the phone gave
            // both halves, by which the second half finds the first in its note.
            let integer = dialect == .postgres ? "BIGINT" : "INTEGER"
            return [
                "ALTER TABLE attachment ADD COLUMN motionHash TEXT REFERENCES blob(hash) ON DELETE RESTRICT",
                "ALTER TABLE attachment ADD COLUMN motionMediaType TEXT",
                "ALTER TABLE attachment ADD COLUMN motionFilename TEXT",
                "ALTER TABLE attachment ADD COLUMN motionDurationMilliseconds \(integer)",
                "ALTER TABLE attachment ADD COLUMN contentIdentifier TEXT",
                // An Android motion photo's clip is inside its own bytes: where it starts.
                "ALTER TABLE attachment ADD COLUMN embeddedVideoOffset \(integer)",
                "CREATE INDEX attachment_on_motionHash ON attachment(motionHash) WHERE motionHash IS NOT NULL",
            ] + BlobHashColumns.checkStatements(BlobHashColumns.motion, dialect) + CatalogTally.motionMigrationStatements(dialect)
        },
    ]

    /// `v18`'s fill: the title key of every note already there. The change feed's trigger is set
    /// aside meanwhile: a derived column is no change a peer must hear of (it would send every
    /// note again).
    private static func fillNoteTitleKeys(_ transaction: any SQLTransaction, _ dialect: SQLDialect) throws {
        let keyed = try transaction.query("SELECT id, title FROM note", [])
            .map { (id: try $0.requiredString("id"), key: NoteTitleSortKey.key(for: try $0.requiredString("title"))) }
            .filter { $0.key != NoteTitleSortKey.untitled }  // the column's default already
        guard !keyed.isEmpty else { return }
        let trigger = "note_update_feeds_change"
        let fillKeys = {
            for (id, key) in keyed {
                try transaction.execute("UPDATE note SET titleKey = ? WHERE id = ?", [.text(key), .text(id)])
            }
        }
        switch dialect {
        case .sqlite:
            guard let definition = try transaction.queryOne("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [.text(trigger)])?
                .string("sql") else { throw SQLDatabaseError(.corrupt, "the catalog has no trigger \(trigger); migration v18 was not applied") }
            try transaction.execute("DROP TRIGGER \(trigger)", [])
            try fillKeys()
            try transaction.execute(definition, [])
        case .postgres:
            try transaction.execute("ALTER TABLE note DISABLE TRIGGER \(trigger)", [])
            try fillKeys()
            try transaction.execute("ALTER TABLE note ENABLE TRIGGER \(trigger)", [])
        }
    }

    /// The key of the change feed's advisory lock in PostgreSQL, as SQL: one per catalog schema
    /// (the feed functions run with the catalog's `search_path`).
    static let postgresFeedLockKey = "hashtextextended('attachmentstore.feed.' || current_schema(), 0)"

    /// `v9`'s feed function of `table`: under the feed lock, the record's one change row is
    /// replaced by a new one with the next `seq`.
    private static func postgresFeedFunction(table: String) -> String {
        let entity = table == "tombstone" ? "NEW.entity" : "'\(table)'"
        return """
            CREATE OR REPLACE FUNCTION \(table)_feeds_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $feed$
            BEGIN
                PERFORM pg_advisory_xact_lock(\(postgresFeedLockKey));
                DELETE FROM change WHERE entity = \(entity) AND id = NEW.id;
                INSERT INTO change (entity, id) VALUES (\(entity), NEW.id);
                RETURN NULL;
            END
            $feed$
            """
    }
}
