import AttachmentStore
import Foundation
import Hummingbird
import Logging

/// Hummingbird's key-value persistence (`PersistDriver`) over the store's catalog: login
/// sessions live where every server of the store can read them, so a cookie one server set is
/// accepted by the others behind a load balancer, and survives a restart.
///
/// Values are JSON; keys are kept only as SHA-256 hashes (``AttachmentStore``'s session values).
/// As a service it removes expired values every ``tidyInterval``.
struct CatalogPersistDriver: PersistDriver {
    let store: AttachmentStore
    let logger: Logger
    /// How often expired values are removed.
    var tidyInterval: Duration = .seconds(600)

    func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        guard try await store.createSessionValue(key: key, value: try Self.encode(value), expiresAt: Self.date(after: expires)) else {
            throw PersistError.duplicate
        }
    }

    func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        try await store.setSessionValue(key: key, value: try Self.encode(value), expiresAt: Self.date(after: expires))
    }

    func get<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> Object? {
        try await getWithTTL(key: key, as: Object.self)?.object
    }

    func getWithTTL<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> (object: Object, ttl: Duration?)? {
        guard let found = try await store.sessionValue(key: key) else { return nil }
        // A value this version cannot read (written by another version, or not JSON) is no session.
        guard let object = try? JSONDecoder().decode(Object.self, from: Data(found.value.utf8)) else { return nil }
        return (object, found.expiresAt.map { .milliseconds(Int64(max(0, $0.timeIntervalSinceNow) * 1000)) })
    }

    func remove(key: String) async throws {
        try await store.removeSessionValue(key: key)
    }

    func shutdown() async throws {}

    func run() async throws {
        await PeriodicWork.run(every: tidyInterval, logger: logger, failure: "removing expired login sessions failed") {
            let removed = try await store.removeExpiredSessionValues()
            if removed > 0 { logger.debug("removed expired login sessions", metadata: ["count": "\(removed)"]) }
        }
    }

    private static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    private static func date(after duration: Duration?) -> Date? {
        duration.map { Date().addingTimeInterval(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) }
    }
}
