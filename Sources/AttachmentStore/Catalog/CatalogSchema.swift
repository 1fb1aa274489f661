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
        return migrator
    }
}
