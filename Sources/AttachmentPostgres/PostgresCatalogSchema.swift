import CatalogSQL

/// The catalog's migrations for PostgreSQL: the same tables, columns, constraints and change-feed
/// triggers as `CatalogSchema` (SQLite) v1…v5, under the same migration ids, then the ones
/// written once for both (`SharedCatalogMigrations`, v6 on).
///
/// Identifiers are unquoted, so PostgreSQL folds them to lower case (`noteId` is `noteid`); the
/// store's unquoted camelCase queries fold the same way. Dates are `TEXT`
/// (`yyyy-MM-dd HH:mm:ss.SSS`), metadata JSON is `TEXT`, integers are `BIGINT`. Append-only:
/// a released migration is never edited.
enum PostgresCatalogSchema {
    /// (id, statements) in order. Each statement is sent on its own.
    static let migrations: [(id: String, statements: [String])] = [
        ("v1: notes, attachments, blobs, image entries", [
            """
            CREATE TABLE note (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                createdAt TEXT NOT NULL,
                updatedAt TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE blob (
                hash TEXT PRIMARY KEY CHECK (length(hash) = 64),
                byteCount BIGINT NOT NULL CHECK (byteCount >= 0),
                state TEXT NOT NULL CHECK (state IN ('present', 'remote')),
                createdAt TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE attachment (
                id TEXT PRIMARY KEY,
                noteId TEXT NOT NULL REFERENCES note(id) ON DELETE CASCADE,
                position BIGINT NOT NULL,
                blobHash TEXT NOT NULL REFERENCES blob(hash) ON DELETE RESTRICT,
                mediaType TEXT NOT NULL,
                filename TEXT NOT NULL,
                width BIGINT,
                height BIGINT,
                orientation BIGINT,
                metadata TEXT NOT NULL DEFAULT '{}',
                createdAt TEXT NOT NULL,
                updatedAt TEXT NOT NULL
            )
            """,
            "CREATE INDEX attachment_on_noteId ON attachment(noteId)",
            "CREATE INDEX attachment_on_blobHash ON attachment(blobHash)",
            "CREATE INDEX attachment_on_noteId_position ON attachment(noteId, position)",
            """
            CREATE TABLE imageEntry (
                key TEXT PRIMARY KEY,
                blobHash TEXT NOT NULL REFERENCES blob(hash) ON DELETE RESTRICT,
                mediaType TEXT NOT NULL,
                updatedAt TEXT NOT NULL
            )
            """,
            "CREATE INDEX imageEntry_on_blobHash ON imageEntry(blobHash)",
        ]),
        ("v2: store settings, bytes inside the catalog", [
            "CREATE TABLE storeSetting (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE blobContent (hash TEXT PRIMARY KEY REFERENCES blob(hash) ON DELETE CASCADE, bytes BYTEA NOT NULL)",
        ]),
        ("v3: clocks, tombstones and the change feed for sync", [
            "ALTER TABLE note ADD COLUMN clock TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE attachment ADD COLUMN clock TEXT NOT NULL DEFAULT ''",
            """
            CREATE TABLE tombstone (
                entity TEXT NOT NULL CHECK (entity IN ('note', 'attachment')),
                id TEXT NOT NULL,
                clock TEXT NOT NULL,
                PRIMARY KEY (entity, id)
            )
            """,
            // The feed keeps one row per record: its latest change. Triggers fill it, so every
            // write path (local or applied from a peer) is in the feed. Writers are serialised by
            // the catalog's advisory lock, so `seq` values commit in increasing order and a
            // reader's cursor never skips a row committed later with a smaller seq. (Since v9,
            // with writers side by side, the triggers draw seq at COMMIT under a lock of their own.)
            """
            CREATE TABLE change (
                seq BIGSERIAL PRIMARY KEY,
                entity TEXT NOT NULL,
                id TEXT NOT NULL,
                UNIQUE (entity, id)
            )
            """,
            // SET search_path FROM CURRENT pins the functions to the catalog's schema.
            feedFunction(name: "note_feeds_change", entity: "'note'"),
            feedFunction(name: "attachment_feeds_change", entity: "'attachment'"),
            feedFunction(name: "tombstone_feeds_change", entity: "NEW.entity"),
        ] + ["note", "attachment", "tombstone"].flatMap { table in
            ["INSERT", "UPDATE"].map { event in
                """
                CREATE TRIGGER \(table)_\(event.lowercased())_feeds_change AFTER \(event) ON \(table)
                    FOR EACH ROW EXECUTE FUNCTION \(table)_feeds_change()
                """
            }
        } + [
            "INSERT INTO change (entity, id) SELECT 'note', id FROM note ORDER BY createdAt",
            "INSERT INTO change (entity, id) SELECT 'attachment', id FROM attachment ORDER BY createdAt",
        ]),
        ("v4: leases on blobs being uploaded to or deleted from an object store", [
            """
            CREATE TABLE blobLease (
                hash TEXT NOT NULL,
                holder TEXT NOT NULL,
                purpose TEXT NOT NULL CHECK (purpose IN ('upload', 'delete')),
                expiresAt TEXT NOT NULL,
                PRIMARY KEY (hash, holder)
            )
            """,
        ]),
        ("v5: evicted and damaged blobs, the time each blob was last re-hashed", [
            "ALTER TABLE blob DROP CONSTRAINT blob_state_check",
            "ALTER TABLE blob ADD CONSTRAINT blob_state_check CHECK (state IN ('present', 'remote', 'evicted', 'damaged'))",
            "ALTER TABLE blob ADD COLUMN checkedAt TEXT",
        ]),
    ] + SharedCatalogMigrations.all.map { ($0.id, $0.statements(.postgres)) }

    private static func feedFunction(name: String, entity: String) -> String {
        """
        CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $feed$
        BEGIN
            DELETE FROM change WHERE entity = \(entity) AND id = NEW.id;
            INSERT INTO change (entity, id) VALUES (\(entity), NEW.id);
            RETURN NULL;
        END
        $feed$
        """
    }
}
