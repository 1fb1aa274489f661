@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// What makes a committed catalog transaction survive a power loss.
@Suite("Catalog durability")
struct CatalogDurabilityTests {
    @Test("the SQLite writer flushes every commit (synchronous = FULL), also after GRDB turned WAL on, and after a reopen")
    func sqliteWriterFlushesEveryCommit() async throws {
        let fixture = try await StoreFixture()
        guard fixture.store.catalog.database.dialect == .sqlite else { return }
        // 2 is FULL; GRDB's WAL set-up leaves its writer at 1 (NORMAL), which does not flush a commit.
        #expect(try await fixture.store.catalog.database.write { db in try db.scalar("PRAGMA synchronous") } == .integer(2))
        let reopened = try await fixture.reopen()
        #expect(try await reopened.catalog.database.write { db in try db.scalar("PRAGMA synchronous") } == .integer(2))
    }
}
