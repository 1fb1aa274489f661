import Foundation

/// Values a store's servers keep for browsers (login sessions), in the catalog so that every
/// server of a shared catalog (PostgreSQL) sees the same ones: a login made through one server
/// behind a load balancer is accepted by the others. Keys are stored only as SHA-256 hashes.
extension AttachmentStore {
    /// Stores `value` under `key` until `expiresAt` (`nil`: until removed), unless a live value
    /// is already there. Returns whether it was stored.
    package func createSessionValue(key: String, value: String, expiresAt: Date?) async throws -> Bool {
        try await catalog.write { db in try LoginSessionRecord.insert(key: key, value: value, expiresAt: expiresAt, now: Date(), in: db) }
    }

    /// Stores `value` under `key`, replacing what is there; with `expiresAt` `nil` an existing
    /// expiry is kept.
    package func setSessionValue(key: String, value: String, expiresAt: Date?) async throws {
        try await catalog.write { db in try LoginSessionRecord.upsert(key: key, value: value, expiresAt: expiresAt, in: db) }
    }

    /// The live value under `key`, with its expiry; `nil` when absent or expired.
    package func sessionValue(key: String) async throws -> (value: String, expiresAt: Date?)? {
        let now = Date()
        return try await catalog.read { db in try LoginSessionRecord.find(key: key, now: now, in: db) }
    }

    /// Removes the value under `key` (nothing when there is none).
    package func removeSessionValue(key: String) async throws {
        try await catalog.write { db in try LoginSessionRecord.delete(key: key, in: db) }
    }

    /// Removes every expired value; how many.
    package func removeExpiredSessionValues() async throws -> Int {
        let now = Date()
        return try await catalog.write { db in try LoginSessionRecord.deleteExpired(now: now, in: db) }
    }
}
