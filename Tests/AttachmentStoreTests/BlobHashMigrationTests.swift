import CatalogSQL
import Foundation
import Testing
import TestSupport
@testable import AttachmentStore

/// Migration `v10`: every catalog column holding a blob hash takes only 64 lowercase hex digits,
/// and a catalog that already holds another value is refused, not migrated over.
@Suite("v10: a blob hash is 64 lowercase hex digits in every column", .timeLimit(.minutes(3)))
struct BlobHashMigrationTests {
    @Test("every column holding a blob hash refuses a malformed one, on insert and on update (this suite's catalog backend)",
          arguments: HostileCatalog.malformedHashes)
    func everyColumnRefusesMalformedHash(bad: String) async throws {
        let fixture = try await StoreFixture("hash-check")
        let database = fixture.store.catalog.database
        try await database.write { _ = try $0.execute("INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, 1, 'remote', ?)",
                                                      [.text(HostileCatalog.wellFormedHash), .text("2026-01-01 00:00:00.000")]) }
        for write in HostileCatalog.writingMalformed(bad) {
            await #expect(throws: (any Error).self, "\(write.column) took \(bad.debugDescription)") {
                try await database.write { transaction in
                    if database.dialect == .sqlite { _ = try transaction.execute("PRAGMA defer_foreign_keys = ON", []) }
                    _ = try transaction.execute(write.sql, write.arguments)
                }
            }
        }
        let dialect = database.dialect
        #expect(try await database.read { try BlobHashColumns.malformed(in: $0, dialect) }.isEmpty)
    }

    @Test("v10 does not migrate over a catalog that holds a path as a blob hash: opening fails naming the row, and v10 is not applied")
    func migrationRefusesExistingMalformedRow() async throws {
        let upgrade = try #require(try UpgradeFixture.all().last)
        let directory = try TemporaryDirectory("hash-migration")
        let store = try upgrade.copy(into: directory)
        let catalog = store.appending(path: "catalog.sqlite").path(percentEncoded: false)
        let crafted = HostileCatalog.siblingHash(".bashrc")
        try HostileCatalog.tamper(sqliteCatalog: catalog, HostileCatalog.plantingAttachment(hash: crafted, byteCount: 9))
        let migrationsBefore = try HostileCatalog.appliedMigrations(sqliteCatalog: catalog)
        let releaseBefore = try UpgradeFixture.recordedRelease(store)

        await #expect {
            _ = try await AttachmentStore.open(at: store)
        } throws: { error in
            guard case AttachmentStore.Error.catalogDamaged(let cause) = error else { return false }
            return cause.message.hasPrefix("blob row \"..//") && cause.message.contains("is not a SHA-256")
                && cause.message.contains("(and 1 more such rows)") && cause.message.contains("migration \"v10: ")
        }
        // Earlier migrations the fixture lacked may have been applied (each commits on its own); v10 was not.
        let migrationsAfter = try HostileCatalog.appliedMigrations(sqliteCatalog: catalog)
        #expect(Set(migrationsBefore).isSubset(of: migrationsAfter))
        #expect(!migrationsAfter.contains { $0.hasPrefix("v10: ") })
        #expect(try UpgradeFixture.recordedRelease(store) == releaseBefore)

        // Once the rows are gone the catalog migrates, and the store is whole.
        try HostileCatalog.tamper(sqliteCatalog: catalog, ["DELETE FROM attachment WHERE blobHash LIKE '..%'", "DELETE FROM blob WHERE hash LIKE '..%'"])
        let opened = try await AttachmentStore.open(at: store)
        #expect(try await opened.verify().isClean)
        let migrated = try HostileCatalog.appliedMigrations(sqliteCatalog: catalog)
        #expect(migrated.contains { $0.hasPrefix("v10: ") } && migrated.last == SharedCatalogMigrations.all.last?.id)
    }
}
