import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Migration `v10` on PostgreSQL: a CHECK on every column holding a blob hash, and a catalog
/// that already holds a malformed one is refused, not migrated over.
@Suite("PostgreSQL: v10 blob hashes", .serialized, .needsPostgres, .timeLimit(.minutes(2)))
struct PostgresBlobHashMigrationTests {
    @Test("every column holding a blob hash refuses each kind of malformed hash, naming its check")
    func everyColumnRefusesMalformedHash() async throws {
        try await PostgresTestEnvironment.withCatalog { database, _ in
            try await database.write { _ = try $0.execute("INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, 1, 'remote', 'x')",
                                                          [.text(HostileCatalog.wellFormedHash)]) }
            for bad in HostileCatalog.malformedHashes where !bad.contains("\u{0}") {  // PostgreSQL text holds no NUL at all
                for write in HostileCatalog.writingMalformed(bad) {
                    let refused = await databaseError { try await database.write { _ = try $0.execute(write.sql, write.arguments) } }
                    #expect(refused?.kind == .constraint, "\(write.column) took \(bad.debugDescription)")
                    // (A short hash in blob.hash meets v1's length check first.)
                    let check = refused.map { $0.message.contains("_is_sha256") || $0.message.contains("blob_hash_check") } ?? false
                    #expect(check, "\(write.column): \(String(describing: refused))")
                }
            }
            #expect(try await database.read { try BlobHashColumns.malformed(in: $0, .postgres) }.isEmpty)
        }
    }

    @Test("v10 is not applied over a malformed hash already in the catalog: migrating fails naming the row, and nothing changes")
    func migrationRefusesExistingMalformedRow() async throws {
        try await PostgresTestEnvironment.withCatalog { database, schema in
            let v10 = try #require(SharedCatalogMigrations.all.first { $0.id.hasPrefix("v10: ") }).id
            // The catalog as the previous release left it, with a crafted row in it.
            try await HostileCatalog.tamper(database, HostileCatalog.plantingAttachment(hash: HostileCatalog.siblingHash(".bashrc"))
                                                + ["DELETE FROM schemaMigration WHERE id = '\(v10)'"])
            let refused = await databaseError {
                let other = try await PostgresCatalogDatabase.connect(url: PostgresTestEnvironment.url(schema: schema),
                                                                      logger: PostgresTestEnvironment.logger)
                await other.close()
            }
            #expect(refused?.kind == .corrupt)
            #expect(refused?.message.hasPrefix("blob row \"..//") == true, "\(String(describing: refused))")
            #expect(refused?.message.contains("migration \"\(v10)\" was not applied") == true)
            let applied = try await database.read { try $0.query("SELECT id FROM schemaMigration", []).map { try $0.requiredString("id") } }
            #expect(!applied.contains(v10))
            let constraints = try await database.read {
                try $0.scalar("SELECT count(*) FROM pg_constraint WHERE conname LIKE '%_is_sha256' AND connamespace = current_schema()::regnamespace")
            }
            #expect(constraints == .integer(0))
        }
    }
}
