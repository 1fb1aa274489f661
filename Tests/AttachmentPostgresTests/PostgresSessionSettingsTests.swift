@testable import AttachmentPostgres
import CatalogSQL
import Testing

/// What a catalog's connections tell PostgreSQL: its name, and the schema only inside each
/// transaction (no startup parameter a pooler such as PgBouncer would refuse, no session
/// setting a pooled connection would carry to another client).
@Suite("PostgreSQL session settings", .needsPostgres, .timeLimit(.minutes(2)))
struct PostgresSessionSettingsTests {
    @Test("every transaction runs in the catalog's schema, set in the transaction and not at connection start; the server sees application_name attach")
    func searchPathIsPerTransaction() async throws {
        try await PostgresTestEnvironment.withCatalog { database, schema in
            for _ in 0..<3 {
                let row = try await database.read { transaction in
                    try transaction.queryOne("""
                        SELECT current_setting('search_path') AS path,
                               (SELECT reset_val FROM pg_settings WHERE name = 'search_path') AS session_path,
                               (SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS name
                        """, [])
                }
                #expect(try row?.string("path") == schema)
                #expect(try row?.string("session_path") != schema, "the connection itself was opened without our search path")
                #expect(try row?.string("name") == "attach")
                let written = try await database.write { transaction in
                    try transaction.queryOne("SELECT current_setting('search_path') AS path", [])
                }
                #expect(try written?.string("path") == schema)
            }
        }
    }

    @Test("application_name in the URL is what the server sees")
    func applicationNameFromURL() async throws {
        let schema = PostgresTestEnvironment.freshSchema()
        let database = try await PostgresCatalogDatabase.connect(
            url: try PostgresTestEnvironment.url(schema: schema) + "&application_name=attach-b&pool_max_conns=2", logger: PostgresTestEnvironment.logger)
        let name = try await database.read { transaction in
            try transaction.queryOne("SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()", [])?.string("name")
        }
        #expect(name == "attach-b")
        try await PostgresTestEnvironment.dropSchema(schema, closing: database)
    }
}
