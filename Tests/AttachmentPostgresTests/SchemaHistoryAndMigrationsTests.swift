@testable import AttachmentPostgres
import CatalogSQL
import Testing

/// `SchemaHistory.refuseNewer` (the refusal to open a catalog a newer release migrated), the
/// migrations written once for both databases (`SharedCatalogMigrations`), and the PostgreSQL
/// migration list they end (`PostgresCatalogSchema`): ids, order, and that every statement goes
/// through the placeholder rewriter unchanged, as `migrate()` sends them.
@Suite("CatalogSQL: schema history and migrations")
struct SchemaHistoryAndMigrationsTests {
    /// The error `refuseNewer` throws for these arguments, or nil.
    static func refusal(applied: [String], known: [String], release: String?, location: String = "/srv/notes/catalog.sqlite") -> SQLDatabaseError? {
        do {
            try SchemaHistory.refuseNewer(applied: applied, known: known, recordedRelease: release, location: location)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Refusing newer catalogs

    @Test("a catalog whose applied migrations this code all knows is accepted", arguments: [
        [String](), ["v1"], ["v1", "v2"], ["v2", "v1"],
    ])
    func knownMigrationsAccepted(applied: [String]) {
        #expect(Self.refusal(applied: applied, known: ["v1", "v2", "v3"], release: "0.1.0") == nil)
    }

    @Test("a catalog missing migrations (an older one, to be migrated) is not refused")
    func olderCatalogAccepted() {
        #expect(Self.refusal(applied: ["v1"], known: ["v1", "v2", "v3"], release: nil) == nil)
    }

    @Test("an unknown migration id is refused as .newerSchema naming the recorded release, this release and the location")
    func newerCatalogRefused() throws {
        let error = try #require(Self.refusal(applied: ["v1", "v2", "v9: teleportation"], known: ["v1", "v2"], release: "9.9.9"))
        #expect(error.kind == .newerSchema)
        #expect(error.message == "the catalog /srv/notes/catalog.sqlite was migrated by attach 9.9.9, and this is attach "
            + "\(SchemaHistory.release): it has schema steps this release does not know (\"v9: teleportation\"). "
            + "Install attach 9.9.9 or later to open it; nothing was changed.")
    }

    @Test("without a recorded release the refusal speaks of a newer release, and lists every unknown id in catalog order")
    func newerCatalogWithoutRelease() throws {
        let error = try #require(Self.refusal(applied: ["v8", "v1", "v7"], known: ["v1"], release: nil, location: "catalog on PostgreSQL"))
        #expect(error.kind == .newerSchema)
        #expect(error.message.hasPrefix("the catalog catalog on PostgreSQL was migrated by a newer release of attach, "))
        #expect(error.message.contains("(\"v8\", \"v7\")"))
        #expect(error.message.hasSuffix("Install the newer release or later to open it; nothing was changed."))
    }

    @Test("ids are compared exactly: a change of case or spacing is an unknown migration")
    func idsComparedExactly() {
        #expect(Self.refusal(applied: ["V1"], known: ["v1"], release: nil)?.kind == .newerSchema)
        #expect(Self.refusal(applied: ["v1 "], known: ["v1"], release: nil)?.kind == .newerSchema)
    }

    @Test("the release is a dotted version and the setting key is the one catalogs record it under")
    func releaseConstants() {
        let parts = SchemaHistory.release.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { Int($0) != nil })
        #expect(SchemaHistory.releaseSettingKey == "schemaRelease")
    }

    // MARK: - Shared migrations

    /// The shared migrations with nothing for PostgreSQL to do.
    static let sqliteOnly: Set = ["v20: a page of new notes indexed for search at once"]

    @Test("shared migrations have unique ids, starting at v6, each with statements for both dialects but v9, which SQLite does not need, and v20, which PostgreSQL does not")
    func sharedMigrationIDs() {
        let ids = SharedCatalogMigrations.all.map(\.id)
        #expect(!ids.isEmpty)
        #expect(Set(ids).count == ids.count)
        #expect(ids.first?.hasPrefix("v6:") == true)
        // v9 moves PostgreSQL's feed triggers to commit time, for writers side by side; SQLite
        // writes one at a time, so its feed needs nothing.
        let postgresOnly: Set = ["v9: the change feed drawn at commit, for writers side by side"]
        // v20 lets SQLite's search triggers index a page of notes at once; PostgreSQL's search
        // index has no trigger.
        let sqliteOnly = Self.sqliteOnly
        #expect(postgresOnly.isSubset(of: Set(ids)) && sqliteOnly.isSubset(of: Set(ids)))
        for migration in SharedCatalogMigrations.all {
            #expect(migration.statements(.sqlite).isEmpty == postgresOnly.contains(migration.id), "\(migration.id): SQLite statements")
            #expect(migration.statements(.postgres).isEmpty == sqliteOnly.contains(migration.id), "\(migration.id): PostgreSQL statements")
        }
    }

    @Test("v6 creates the index that lists notes by last change, newest first, then by id")
    func v6Statements() throws {
        let v6 = try #require(SharedCatalogMigrations.all.first)
        #expect(v6.id == "v6: notes listed by last change without sorting")
        for dialect in [SQLDialect.sqlite, .postgres] {
            #expect(v6.statements(dialect) == ["CREATE INDEX note_on_updatedAt_id ON note(updatedAt DESC, id)"])
        }
    }

    @Test("the dialects are named as the store's configuration spells them")
    func dialectNames() {
        #expect(SQLDialect(rawValue: "sqlite") == .sqlite)
        #expect(SQLDialect(rawValue: "postgres") == .postgres)
        #expect(SQLDialect(rawValue: "postgresql") == nil)
    }

    // MARK: - PostgreSQL's migration list

    @Test("PostgreSQL's migrations are v1 to v5 of its own, then every shared one in order, ids unique")
    func postgresMigrationOrder() {
        let ids = PostgresCatalogDatabase.migrationIDs
        #expect(ids == PostgresCatalogSchema.migrations.map(\.id))
        #expect(Set(ids).count == ids.count)
        #expect(ids.prefix(5).enumerated().allSatisfy { $0.element.hasPrefix("v\($0.offset + 1): ") })
        #expect(Array(ids.dropFirst(5)) == SharedCatalogMigrations.all.map(\.id))
    }

    @Test("the shared migrations' PostgreSQL statements are the ones PostgreSQL runs")
    func sharedStatementsUsedForPostgres() {
        let tail = PostgresCatalogSchema.migrations.suffix(SharedCatalogMigrations.all.count)
        for (migration, shared) in zip(tail, SharedCatalogMigrations.all) {
            #expect(migration.statements == shared.statements(.postgres))
        }
    }

    @Test("every migration statement holds no placeholder, so the rewriter sends it unchanged")
    func statementsSurviveTranslation() {
        for migration in PostgresCatalogSchema.migrations {
            #expect(!migration.statements.isEmpty || Self.sqliteOnly.contains(migration.id), "\(migration.id) has no statements")
            for statement in migration.statements {
                let translated = Placeholders.translate(statement)
                #expect(translated.count == 0, "\(migration.id): \(statement)")
                #expect(translated.sql == statement, "\(migration.id): \(statement)")
            }
        }
    }

    @Test("v3's change-feed triggers cover inserts and updates of notes, attachments and tombstones")
    func v3Triggers() throws {
        let v3 = try #require(PostgresCatalogSchema.migrations.first { $0.id.hasPrefix("v3:") })
        let triggers = v3.statements.filter { $0.hasPrefix("CREATE TRIGGER") }
        #expect(triggers.count == 6)
        for table in ["note", "attachment", "tombstone"] {
            for event in ["INSERT", "UPDATE"] {
                #expect(triggers.contains { $0.contains("\(table)_\(event.lowercased())_feeds_change AFTER \(event) ON \(table)") },
                        "no \(event) trigger on \(table)")
            }
        }
        let functions = v3.statements.filter { $0.hasPrefix("CREATE FUNCTION") }
        #expect(functions.count == 3)
        #expect(functions.allSatisfy { $0.contains("SET search_path FROM CURRENT") }, "each feed function is pinned to the catalog's schema")
    }
}
