import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The values a store's servers keep for browsers (login sessions), in the catalog every server
/// of the store shares (on PostgreSQL in the shared-catalog pass).
@Suite("Login sessions kept in the catalog", .timeLimit(.minutes(2)))
struct LoginSessionStorageTests {
    @Test("a session is created once, read by another handle on the store, replaced, and removed")
    func sessionLifecycle() async throws {
        let fixture = try await StoreFixture("sessions")
        let store = fixture.store
        let expiry = Date().addingTimeInterval(3600)
        #expect(try await store.createSessionValue(key: "session.a", value: #"{"scope":"full"}"#, expiresAt: expiry))
        #expect(try await !store.createSessionValue(key: "session.a", value: #"{"scope":"other"}"#, expiresAt: expiry),
                "a live session is never overwritten by a create")
        let other = try await fixture.reopen()
        let found = try #require(try await other.sessionValue(key: "session.a"))
        #expect(found.value == #"{"scope":"full"}"#)
        #expect(abs((found.expiresAt ?? .distantPast).timeIntervalSince(expiry)) < 0.01)

        try await store.setSessionValue(key: "session.a", value: #"{"scope":"changed"}"#, expiresAt: nil)
        let changed = try #require(try await other.sessionValue(key: "session.a"))
        #expect(changed.value == #"{"scope":"changed"}"#)
        #expect(abs((changed.expiresAt ?? .distantPast).timeIntervalSince(expiry)) < 0.01, "a set without an expiry keeps the one there")

        try await other.removeSessionValue(key: "session.a")
        #expect(try await store.sessionValue(key: "session.a") == nil)
        try await store.removeSessionValue(key: "session.never-there")
    }

    @Test("an expired session reads as absent, can be created again, and is removed by the tidy-up")
    func expiredSessions() async throws {
        let fixture = try await StoreFixture("sessions-expired")
        let store = fixture.store
        let past = Date().addingTimeInterval(-1)
        #expect(try await store.createSessionValue(key: "session.old", value: "1", expiresAt: past))
        #expect(try await store.createSessionValue(key: "session.other-old", value: "1", expiresAt: past))
        #expect(try await store.createSessionValue(key: "session.live", value: "2", expiresAt: nil))
        #expect(try await store.sessionValue(key: "session.old") == nil)
        #expect(try await store.createSessionValue(key: "session.old", value: "3", expiresAt: Date().addingTimeInterval(60)),
                "an expired session does not block a new one under the same key")
        #expect(try await store.removeExpiredSessionValues() == 1)
        #expect(try await store.sessionValue(key: "session.old")?.value == "3")
        #expect(try await store.sessionValue(key: "session.live")?.value == "2")
    }

    @Test("sessions stay with the servers: no change in the feed, and a backup restored elsewhere knows none")
    func sessionsStayWithTheServers() async throws {
        let fixture = try await StoreFixture("sessions-backup")
        #expect(try await fixture.store.createSessionValue(key: "session.b", value: "1", expiresAt: nil))
        #expect(try await fixture.store.changes(since: 0).changes.isEmpty, "no change in the feed for a session")
        let folder = try TemporaryDirectory("sessions-backup-copy")
        _ = try await fixture.store.backup(to: folder.appending("backup"))
        _ = try await AttachmentStore.restore(from: folder.appending("backup"), to: folder.appending("restored"))
        let restored = try await AttachmentStore.open(at: folder.appending("restored"))
        #expect(try await restored.sessionValue(key: "session.b") == nil)
    }
}
