@testable import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// A catalog reached over PostgreSQL's Unix socket, named the two ways libpq's users write it:
/// a percent-encoded directory as the URL's host, or `?host=/directory`. The test cluster
/// (scripts/services/postgres.sh) listens on a socket in its own 0700 folder, with a password.
@Suite("PostgreSQL over a Unix socket", .needsPostgres, .timeLimit(.minutes(2)))
struct PostgresUnixSocketTests {
    /// The socket folder of the test cluster and the TCP URL's credentials.
    static func socketSettings() throws -> (directory: String, tcp: CatalogURL) {
        let directory = try #require(PostgresTestEnvironment.environment["ATTACH_TEST_POSTGRES_SOCKET_DIR"],
                                     "scripts/with-services.sh exports the socket folder")
        let tcp = try CatalogURL(try #require(PostgresTestEnvironment.url), environment: [:])
        return (directory, tcp)
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Connects with `url`, checks the session is on a socket (no server address) and that a
    /// write commits, then drops the schema.
    static func expectSocketSession(_ url: String, schema: String) async throws {
        let parsed = try CatalogURL(url, environment: [:])
        #expect(parsed.unixSocketPath != nil)
        #expect(parsed.tls == .disable)
        let database = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger)
        let onSocket = try await database.read { transaction in
            try transaction.queryOne("SELECT (inet_server_addr() IS NULL)::text AS socket", [])?.string("socket")
        }
        #expect(onSocket == "true", "inet_server_addr() is NULL only for a Unix-socket session")
        try await database.write { try $0.execute("CREATE TABLE socket_probe (n integer)") }
        try await PostgresTestEnvironment.dropSchema(schema, closing: database)
    }

    @Test("a percent-encoded socket folder as the host reaches the catalog without TCP")
    func socketFolderAsHost() async throws {
        let (directory, tcp) = try Self.socketSettings()
        let schema = PostgresTestEnvironment.freshSchema()
        let url = "postgres://\(tcp.user):\(Self.encoded(tcp.password ?? ""))@\(Self.encoded(directory)):\(tcp.port)/\(tcp.database)?schema=\(schema)"
        try await Self.expectSocketSession(url, schema: schema)
    }

    @Test("host= naming the socket folder in the query reaches the catalog too")
    func socketFolderAsParameter() async throws {
        let (directory, tcp) = try Self.socketSettings()
        let schema = PostgresTestEnvironment.freshSchema()
        let url = "postgresql://\(tcp.user)@/\(tcp.database)?host=\(Self.encoded(directory))&port=\(tcp.port)"
            + "&password=\(Self.encoded(tcp.password ?? ""))&schema=\(schema)"
        try await Self.expectSocketSession(url, schema: schema)
    }

    @Test("a socket folder where nothing listens fails unavailable, naming the socket file")
    func missingSocketIsUnavailable() async throws {
        let (_, tcp) = try Self.socketSettings()
        let directory = try TemporaryDirectory("pg-nosocket")
        let empty = directory.path
        let url = "postgres://\(tcp.user):\(Self.encoded(tcp.password ?? ""))@\(Self.encoded(empty)):\(tcp.port)/\(tcp.database)?connect_timeout=2"
        do {
            let database = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger)
            await database.close()
            Issue.record("a catalog opened on a socket nobody listens on")
        } catch let error as SQLDatabaseError {
            #expect(error.kind == .unavailable)
            #expect(error.message.contains("\(empty)/.s.PGSQL.\(tcp.port)"), "\(error.message)")
            #expect(!error.message.contains(tcp.password ?? "-"), "the password stays out of the message")
        }
    }
}
