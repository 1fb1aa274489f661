import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Migration `v18` on PostgreSQL: notes already in the catalog get their title's sort key, byte
/// order ("C") decides, and the change feed hears nothing of it.
@Suite("PostgreSQL: v18 title keys", .serialized, .needsPostgres, .timeLimit(.minutes(2)))
struct PostgresNoteTitleKeyMigrationTests {
    static let titles = ["Trip 10", "éclair", "Apple", "", "Trip 9", "Zebra", "banana"]

    @Test("v18 fills the title key of every note already there, lists them by title off its index, and adds nothing to the change feed")
    func fillsKeysWithoutFeedingChanges() async throws {
        try await PostgresTestEnvironment.withCatalog { database, schema in
            let v18 = try #require(SharedCatalogMigrations.all.first { $0.id.hasPrefix("v18: ") }).id
            // The catalog as the previous release left it, with notes in it.
            try await database.write { db in
                for statement in ["DROP INDEX note_on_createdAt_id", "DROP INDEX note_on_titleKey_id", "ALTER TABLE note DROP COLUMN titleKey",
                                  "DELETE FROM schemaMigration WHERE id = '\(v18)'"] {
                    try db.execute(statement)
                }
                for (index, title) in Self.titles.enumerated() {
                    try db.execute("INSERT INTO note (id, title, body, createdAt, updatedAt) VALUES (?, ?, '', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')",
                                   [.text(String(format: "00000000-0000-4000-8000-%012d", index)), .text(title)])
                }
            }
            let feed = "SELECT seq, entity, id FROM change ORDER BY seq"
            let feedBefore = try await database.read { try $0.query(feed, []).map { "\(try $0.requiredString("id")) \(try $0.requiredInt64("seq"))" } }
            #expect(feedBefore.count == Self.titles.count)

            let migrated = try await PostgresCatalogDatabase.connect(url: PostgresTestEnvironment.url(schema: schema), logger: PostgresTestEnvironment.logger)
            let keys = try await migrated.read { db in
                try db.query("SELECT title, titleKey FROM note ORDER BY titleKey, id", []).map { (try $0.requiredString("title"), try $0.requiredString("titleKey")) }
            }
            #expect(keys.map(\.0) == ["Apple", "banana", "éclair", "Trip 9", "Trip 10", "Zebra", ""])
            for (title, key) in keys { #expect(key == NoteTitleSortKey.key(for: title), "\(title)") }
            let feedAfter = try await migrated.read { try $0.query(feed, []).map { "\(try $0.requiredString("id")) \(try $0.requiredInt64("seq"))" } }
            #expect(feedAfter == feedBefore, "a derived column is no change a peer must hear of")

            // The feed's trigger, set aside while the keys were filled, is back.
            try await migrated.write { _ = try $0.execute("UPDATE note SET body = 'x' WHERE title = 'Zebra'", []) }
            let last = try await migrated.read { try $0.query(feed, []).last.map { try $0.requiredString("id") } }
            #expect(last == String(format: "00000000-0000-4000-8000-%012d", 5))
            let plan = try await migrated.read { db in
                try db.execute("SET LOCAL enable_seqscan = off", [])
                return try db.query("EXPLAIN SELECT * FROM note WHERE trashedAt IS NULL ORDER BY titleKey ASC, id LIMIT 50", []).map { try $0.requiredString("QUERY PLAN") }
            }
            #expect(plan.contains { $0.lowercased().contains("note_on_titlekey_id") } && !plan.contains { $0.contains("Sort") }, "\(plan)")
            await migrated.close()
        }
    }
}
