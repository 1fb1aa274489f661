import CatalogSQL
import GRDB

/// The catalog's migrations: named, append-only, never edited once released.
enum CatalogSchema {
    /// All migrations in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: notes, attachments, blobs, image entries") { db in
            try db.create(table: "note") { t in
                t.primaryKey("id", .text)
                t.column("title", .text).notNull()
                t.column("body", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "blob") { t in
                t.primaryKey("hash", .text).check { length($0) == 64 }
                t.column("byteCount", .integer).notNull().check { $0 >= 0 }
                t.column("state", .text).notNull().check { ["present", "remote"].contains($0) }
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "attachment") { t in
                t.primaryKey("id", .text)
                t.belongsTo("note", onDelete: .cascade).notNull()
                t.column("position", .integer).notNull()
                t.column("blobHash", .text).notNull()
                    .references("blob", column: "hash", onDelete: .restrict)
                    .indexed()
                t.column("mediaType", .text).notNull()
                t.column("filename", .text).notNull()
                t.column("width", .integer)
                t.column("height", .integer)
                t.column("orientation", .integer)
                t.column("metadata", .jsonText).notNull().defaults(to: "{}")
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "attachment_on_noteId_position", on: "attachment", columns: ["noteId", "position"])
            try db.create(table: "imageEntry") { t in
                t.primaryKey("key", .text)
                t.column("blobHash", .text).notNull()
                    .references("blob", column: "hash", onDelete: .restrict)
                    .indexed()
                t.column("mediaType", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: store settings, bytes inside the catalog") { db in
            try db.create(table: "storeSetting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.create(table: "blobContent") { t in
                t.primaryKey("hash", .text).references("blob", column: "hash", onDelete: .cascade)
                t.column("bytes", .blob).notNull()
            }
        }
        migrator.registerMigration("v3: clocks, tombstones and the change feed for sync") { db in
            try db.alter(table: "note") { t in t.add(column: "clock", .text).notNull().defaults(to: "") }
            try db.alter(table: "attachment") { t in t.add(column: "clock", .text).notNull().defaults(to: "") }
            try db.create(table: "tombstone") { t in
                t.column("entity", .text).notNull().check { ["note", "attachment"].contains($0) }
                t.column("id", .text).notNull()
                t.column("clock", .text).notNull()
                t.primaryKey(["entity", "id"])
            }
            // The feed keeps one row per record: its latest change. Triggers fill it, so every
            // write path (local or applied from a peer) is in the feed, and peers relay changes.
            try db.create(table: "change") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("entity", .text).notNull()
                t.column("id", .text).notNull()
                t.uniqueKey(["entity", "id"])
            }
            for (table, entity) in [("note", "note"), ("attachment", "attachment")] {
                for event in ["INSERT", "UPDATE"] {
                    try db.execute(sql: """
                        CREATE TRIGGER \(table)_\(event.lowercased())_feeds_change AFTER \(event) ON \(table) BEGIN
                            DELETE FROM change WHERE entity = '\(entity)' AND id = NEW.id;
                            INSERT INTO change (entity, id) VALUES ('\(entity)', NEW.id);
                        END
                        """)
                }
            }
            for event in ["INSERT", "UPDATE"] {
                try db.execute(sql: """
                    CREATE TRIGGER tombstone_\(event.lowercased())_feeds_change AFTER \(event) ON tombstone BEGIN
                        DELETE FROM change WHERE entity = NEW.entity AND id = NEW.id;
                        INSERT INTO change (entity, id) VALUES (NEW.entity, NEW.id);
                    END
                    """)
            }
            try db.execute(sql: "INSERT INTO change (entity, id) SELECT 'note', id FROM note ORDER BY createdAt")
            try db.execute(sql: "INSERT INTO change (entity, id) SELECT 'attachment', id FROM attachment ORDER BY createdAt")
        }
        migrator.registerMigration("v4: leases on blobs being uploaded to or deleted from an object store") { db in
            // An ingest claims a blob before uploading it; gc claims it before deleting its object.
            // Each skips a blob the other holds, so neither can undo the other (see BlobLease).
            try db.create(table: "blobLease") { t in
                t.column("hash", .text).notNull()
                t.column("holder", .text).notNull()
                t.column("purpose", .text).notNull().check { ["upload", "delete"].contains($0) }
                t.column("expiresAt", .datetime).notNull()
                t.primaryKey(["hash", "holder"])
            }
        }
        migrator.registerMigration("v5: evicted and damaged blobs, the time each blob was last re-hashed",
                                   foreignKeyChecks: .deferred) { db in
            // SQLite cannot change a CHECK constraint in place: the table is made again under a
            // new name, filled, and renamed over the old one (foreign keys checked at the end).
            try db.create(table: "blob_v5") { t in
                t.primaryKey("hash", .text).check { length($0) == 64 }
                t.column("byteCount", .integer).notNull().check { $0 >= 0 }
                t.column("state", .text).notNull().check { ["present", "remote", "evicted", "damaged"].contains($0) }
                t.column("createdAt", .datetime).notNull()
                t.column("checkedAt", .datetime)
            }
            try db.execute(sql: "INSERT INTO blob_v5 (hash, byteCount, state, createdAt) SELECT hash, byteCount, state, createdAt FROM blob")
            try db.drop(table: "blob")
            try db.rename(table: "blob_v5", to: "blob")
        }
        // From v6 on, migrations are written once for both catalogs.
        for migration in SharedCatalogMigrations.all {
            migrator.registerMigration(migration.id) { db in
                try migration.refuseDamage(in: GRDBTransaction(db: db), .sqlite)
                for statement in migration.statements(.sqlite) { try db.execute(sql: statement) }
                try migration.fill(in: GRDBTransaction(db: db), .sqlite)
            }
        }
        return migrator
    }
}
