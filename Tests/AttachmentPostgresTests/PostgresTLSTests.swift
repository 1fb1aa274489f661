@testable import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// TLS to the test server, which `scripts/services/postgres.sh` runs with a self-signed
/// certificate (`ATTACH_TEST_POSTGRES_CA`).
@Suite("PostgreSQL over TLS", .needsPostgres, .timeLimit(.minutes(3)),
       .enabled(if: ProcessInfo.processInfo.environment["ATTACH_TEST_POSTGRES_CA"] != nil, "needs ATTACH_TEST_POSTGRES_CA"))
struct PostgresTLSTests {
    static var certificateAuthority: String { ProcessInfo.processInfo.environment["ATTACH_TEST_POSTGRES_CA"] ?? "" }

    /// Whether the catalog's own connection is encrypted, as the server sees it.
    static func connectionIsEncrypted(_ url: String) async throws -> Bool {
        let database = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger, connections: 1)
        let row: SQLRow?
        do {
            row = try await database.read { try $0.queryOne("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
        return try #require(row).bool("ssl")
    }

    @Test("sslmode=verify-full or verify-ca with the server's CA connects encrypted; without sslmode (prefer) too; disable is plain")
    func verifiedTLS() async throws {
        let schema = PostgresTestEnvironment.freshSchema()
        let base = try PostgresTestEnvironment.url(schema: schema)
        #expect(try await Self.connectionIsEncrypted(base + "&sslmode=verify-full&sslrootcert=\(Self.certificateAuthority)"))
        #expect(try await Self.connectionIsEncrypted(base + "&sslmode=verify-ca&sslrootcert=\(Self.certificateAuthority)"))
        #expect(try await Self.connectionIsEncrypted(base + "&sslmode=require"))
        #expect(try await Self.connectionIsEncrypted(base + "&sslmode=prefer"))
        #expect(try await Self.connectionIsEncrypted(base), "a URL without sslmode prefers TLS, which this server offers")
        #expect(try await Self.connectionIsEncrypted(base + "&sslmode=disable") == false)
        let cleanup = try await PostgresCatalogDatabase.connect(url: base, logger: PostgresTestEnvironment.logger, connections: 1)
        _ = try await cleanup.write { try $0.execute("DROP SCHEMA \(schema) CASCADE") }
        await cleanup.close()
    }

    @Test("sslmode=verify-full refuses a server whose certificate another CA signed, before any catalog work")
    func untrustedServerIsRefused() async throws {
        let directory = try TemporaryDirectory("pg-tls")
        let otherCA = directory.appending("other-ca.pem").path(percentEncoded: false)
        let made = try await ChildProcess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-keyout", directory.appending("other-key.pem").path(percentEncoded: false), "-out", otherCA,
        ])
        #expect(made.exitCode == 0, "\(made.stderr)")
        let url = try PostgresTestEnvironment.url(schema: PostgresTestEnvironment.freshSchema()) + "&sslmode=verify-full&sslrootcert=\(otherCA)"
        await #expect(throws: SQLDatabaseError.self) {
            _ = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger, connections: 1)
        }
    }

    @Test("an unreadable sslrootcert is a clear error naming the file")
    func unreadableRootCertificate() async throws {
        let url = try PostgresTestEnvironment.url(schema: "public") + "&sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"
        await #expect { _ = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger) } throws: { error in
            String(describing: error).contains("/nonexistent/ca.pem")
        }
    }
}
