import AttachmentPostgres
import CatalogSQL
import Foundation
import Logging
import Testing
import TestSupport

/// The PostgreSQL server `scripts/with-services.sh` starts, as the environment describes it.
enum PostgresTestEnvironment {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    /// `ATTACH_TEST_POSTGRES`: `postgres://USER:PASSWORD@127.0.0.1:PORT/DATABASE`.
    static var url: String? { environment["ATTACH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 } }
    static var isAvailable: Bool { url != nil }
    /// Whether `make test` asked for every service-backed test to run (`ATTACH_REQUIRE_SERVICES=1`).
    static var servicesRequired: Bool { environment["ATTACH_REQUIRE_SERVICES"] == "1" }
    /// postgres.sh, for the test that starts, stops and restarts a server of its own.
    static var serviceScript: String? { environment["ATTACH_POSTGRES_SERVICE_SCRIPT"] }
    static var canRestart: Bool { isAvailable && serviceScript != nil }

    static let logger = Logger(label: "AttachmentPostgresTests")

    /// A schema name no other test uses.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The test server's URL with `?schema=schema`.
    static func url(schema: String) throws -> String {
        try #require(url) + "?schema=\(schema)"
    }

    /// Opens a catalog in a fresh schema, runs `body`, then drops the schema and closes.
    static func withCatalog<T>(_ body: (PostgresCatalogDatabase, String) async throws -> T) async throws -> T {
        let schema = freshSchema()
        let database = try await PostgresCatalogDatabase.connect(url: url(schema: schema), logger: logger)
        let result: T
        do {
            result = try await body(database, schema)
        } catch {
            await drop(schema, database)
            throw error
        }
        await drop(schema, database)
        return result
    }

    private static func drop(_ schema: String, _ database: PostgresCatalogDatabase) async {
        _ = try? await database.write { try $0.execute("DROP SCHEMA \(schema) CASCADE") }
        await database.close()
    }

    /// Drops `schema` and closes `database`, a failure of the drop surfacing as the test's.
    static func dropSchema(_ schema: String, closing database: PostgresCatalogDatabase) async throws {
        do {
            try await database.write { try $0.execute("DROP SCHEMA \(schema) CASCADE") }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    /// Runs postgres.sh with `arguments` (stdin and stdout `/dev/null`, stderr inherited); its
    /// exit status, or -1 when a signal ended it.
    ///
    /// Started with `posix_spawn` and reaped with `waitpid` on a thread of its own: Foundation's
    /// `Process` on Linux waits until every descendant has closed a descriptor it inherited,
    /// and the PostgreSQL server that `start` leaves running never does.
    static func runServiceScript(_ arguments: [String]) async throws -> Int32 {
        let script = try #require(serviceScript)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                let argv: [UnsafeMutablePointer<CChar>?] = ([script] + arguments).map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                var pid: pid_t = 0
                let spawned = posix_spawn(&pid, script, &actions, nil, argv, environ)
                guard spawned == 0 else {
                    continuation.resume(throwing: POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO))
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import.
                continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : -1)
            }
        }
    }

    /// A loopback TCP port nothing listens on now.
    static func freePort() throws -> Int { try LoopbackPort.free() }

    /// The port of the test server's URL.
    static func port() throws -> Int {
        let url = try #require(url)
        return try #require(URLComponents(string: url)?.port)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when a PostgreSQL server is configured; `make test` starts one.
    static var needsPostgres: Self {
        .enabled(if: PostgresTestEnvironment.isAvailable, "needs ATTACH_TEST_POSTGRES (scripts/with-services.sh starts a local PostgreSQL)")
    }
}

/// The ``SQLDatabaseError`` `body` throws; fails the test when it throws something else or nothing.
func databaseError(_ body: () async throws -> Void) async -> SQLDatabaseError? {
    do {
        try await body()
        Issue.record("expected a SQLDatabaseError, nothing was thrown")
        return nil
    } catch let error as SQLDatabaseError {
        return error
    } catch {
        Issue.record("expected a SQLDatabaseError, got \(error)")
        return nil
    }
}
