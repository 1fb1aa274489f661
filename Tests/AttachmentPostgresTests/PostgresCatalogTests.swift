import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing

/// Every test here talks to the PostgreSQL of `ATTACH_TEST_POSTGRES`, each in a schema of its
/// own. They run one at a time; the restart test stops and starts a PostgreSQL of its own.
@Suite("PostgreSQL catalog", .serialized, .needsPostgres, .timeLimit(.minutes(2)))
struct PostgresCatalogTests {}

private struct Boom: Error {}

extension PostgresCatalogTests {
    @Suite("values and transactions")
    struct ValuesAndTransactions {
        @Test("integers, reals, text with quotes and '?', bytes, NULL and dates round-trip; '?' inside literals is not a placeholder")
        func valuesRoundTrip() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let date = Date(timeIntervalSince1970: 1_700_000_000.123)
                let tricky = "it's a '?' -- not /* a */ comment? \"q\" $$x$$ ?"
                let bytes = Data([0, 1, 2, 255, 0, 39, 63])
                try await database.write { transaction in
                    try transaction.execute("CREATE TABLE sample (id BIGINT PRIMARY KEY, i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA, d TEXT)")
                    let inserted = try transaction.execute(
                        "INSERT INTO sample (id, i, r, s, b, d) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)",
                        [1, .integer(Int64.max), .real(-1.25e-3), .text(tricky), .blob(bytes), .date(date),
                         2, .integer(Int64.min), .null, .null, .null, .null])
                    #expect(inserted == 2)
                }
                let rows = try await database.read { transaction in
                    try transaction.query("""
                        SELECT id, i, r, s, b, d, '?' AS literal, 'it''s ?' AS quoted, E'\\'?' AS escaped -- a comment?
                        FROM sample WHERE s = ? OR s IS NULL /* and /* nested? */ ? */ ORDER BY id
                        """, [.text(tricky)])
                }
                try #require(rows.count == 2)
                #expect(rows[0].columns == ["id", "i", "r", "s", "b", "d", "literal", "quoted", "escaped"])
                #expect(rows[0]["I"] == .integer(Int64.max))
                #expect(rows[0]["r"] == .real(-1.25e-3))
                #expect(rows[0]["s"] == .text(tricky))
                #expect(rows[0]["b"] == .blob(bytes))
                #expect(try rows[0].requiredDate("d") == date)
                #expect(rows[0]["d"] == .text("2023-11-14 22:13:20.123"))
                #expect(rows[0]["literal"] == .text("?"))
                #expect(rows[0]["quoted"] == .text("it's ?"))
                #expect(rows[0]["escaped"] == .text("'?"))
                #expect(rows[1].values[1...5] == [.integer(Int64.min), .null, .null, .null, .null])
            }
        }

        @Test("bool reads as 1/0, numeric as an integer when integral, int2/int4/float4 widen, a NULL argument takes its type from its use")
        func resultTypesAndNullArguments() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let row = try await database.read { transaction in
                    try transaction.queryOne("""
                        SELECT true AS yes, false AS no, 2.50::numeric AS half, 10.00::numeric AS whole,
                               7::int2 AS small, 8::int4 AS medium, 1.5::float4 AS single, 'v'::varchar AS text,
                               NULL::bigint AS nothing, CAST(? AS TEXT) AS boundnull, COALESCE(?, 5) AS fallback
                        """, [.null, .null])
                }
                let values = try #require(row)
                #expect(values["yes"] == .integer(1))
                #expect(values["no"] == .integer(0))
                #expect(try values.bool("yes"))
                #expect(values["half"] == .real(2.5))
                #expect(values["whole"] == .integer(10))
                #expect(values["small"] == .integer(7))
                #expect(values["medium"] == .integer(8))
                #expect(values["single"] == .real(1.5))
                #expect(values["text"] == .text("v"))
                #expect(values["nothing"] == .null)
                #expect(values["boundnull"] == .null)
                #expect(values["fallback"] == .integer(5))
                let sums = try await database.read { transaction in
                    try transaction.queryOne("SELECT count(*) AS n, sum(x) AS total FROM (VALUES (1::bigint), (2::bigint)) AS v(x)")
                }
                #expect(sums?["n"] == .integer(2))
                #expect(sums?["total"] == .integer(3))
            }
        }

        @Test("a body that throws rolls back everything it wrote, and the error reaches the caller")
        func throwingBodyRollsBack() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                await #expect(throws: Boom.self) {
                    try await database.write { transaction in
                        try transaction.execute("INSERT INTO storeSetting (key, value) VALUES (?, ?)", ["placement", "files"])
                        throw Boom()
                    }
                }
                let count = try await database.read { try $0.scalar("SELECT count(*) FROM storeSetting WHERE key <> 'schemaRelease'") }
                #expect(count == .integer(0))
            }
        }

        @Test("a failed statement whose error the body catches leaves the transaction usable, as in SQLite")
        func caughtStatementErrorKeepsTransaction() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let kind = try await database.write { transaction -> SQLDatabaseError.Kind? in
                    try transaction.execute("INSERT INTO storeSetting (key, value) VALUES ('a', '1')")
                    var kind: SQLDatabaseError.Kind?
                    do {
                        try transaction.execute("INSERT INTO storeSetting (key, value) VALUES ('a', '2')")
                    } catch let error as SQLDatabaseError {
                        kind = error.kind
                    }
                    try transaction.execute("INSERT INTO storeSetting (key, value) VALUES ('b', '3')")
                    return kind
                }
                #expect(kind == .constraint)
                let rows = try await database.read { try $0.query("SELECT key, value FROM storeSetting WHERE key <> 'schemaRelease' ORDER BY key", []) }
                #expect(rows.map { $0.values } == [[.text("a"), .text("1")], [.text("b"), .text("3")]])
            }
        }

        @Test("a read transaction refuses writes")
        func readTransactionIsReadOnly() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let error = await databaseError {
                    _ = try await database.read { try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('a', '1')") }
                }
                #expect(error?.kind == .other)
                #expect(error?.message.contains("25006") == true)
            }
        }

        @Test("two catalogs on one schema, each with many concurrent read-modify-write writers, lose no increment")
        func concurrentWritersLoseNoUpdate() async throws {
            try await PostgresTestEnvironment.withCatalog { first, schema in
                let second = try await PostgresCatalogDatabase.connect(
                    url: PostgresTestEnvironment.url(schema: schema), logger: PostgresTestEnvironment.logger)
                try await first.write { try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('counter', '0')") }
                let perDatabase = 20
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for database in [first, second] {
                        for _ in 0..<perDatabase {
                            group.addTask {
                                try await database.write { transaction in
                                    let value = try transaction.queryOne("SELECT value FROM storeSetting WHERE key = 'counter'")
                                    guard let current = try value?.int64("value") else { throw Boom() }
                                    usleep(2_000)  // widen the read-modify-write window: without the lock, updates would be lost
                                    try transaction.execute("UPDATE storeSetting SET value = ? WHERE key = 'counter'", [.text(String(current + 1))])
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                await second.close()
                let final = try await first.read { try $0.scalar("SELECT value FROM storeSetting WHERE key = 'counter'") }
                #expect(final == .text(String(2 * perDatabase)))
            }
        }

        @Test("a unique, foreign-key or check violation is .constraint with PostgreSQL's message")
        func violationsAreConstraintErrors() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let note: [SQLValue] = ["n1", "title", "body", .date(Date()), .date(Date())]
                let insertNote = "INSERT INTO note (id, title, body, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)"
                try await database.write { try $0.execute(insertNote, note) }
                let unique = await databaseError { _ = try await database.write { try $0.execute(insertNote, note) } }
                #expect(unique?.kind == .constraint)
                #expect(unique?.message.contains("23505") == true)
                #expect(unique?.message.contains("note_pkey") == true)
                let foreignKey = await databaseError {
                    _ = try await database.write {
                        try $0.execute("INSERT INTO imageEntry (key, blobHash, mediaType, updatedAt) VALUES ('k', ?, 'image/png', '')",
                                       [.text(String(repeating: "a", count: 64))])
                    }
                }
                #expect(foreignKey?.kind == .constraint)
                let check = await databaseError {
                    _ = try await database.write {
                        try $0.execute("INSERT INTO blob (hash, byteCount, state, createdAt) VALUES ('short', 1, 'present', '')")
                    }
                }
                #expect(check?.kind == .constraint)
            }
        }
    }

    @Suite("schema and migrations")
    struct Migrations {
        @Test("migrations apply once: connecting again, even three servers at once, applies nothing; every one is recorded")
        func migrationsAreIdempotent() async throws {
            let schema = PostgresTestEnvironment.freshSchema()
            let url = try PostgresTestEnvironment.url(schema: schema)
            let logger = PostgresTestEnvironment.logger
            let databases = try await withThrowingTaskGroup(of: PostgresCatalogDatabase.self) { group in
                for _ in 0..<3 { group.addTask { try await PostgresCatalogDatabase.connect(url: url, logger: logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for database in databases { #expect(try await database.migrate() == []) }
            let applied = try await databases[0].read { try $0.query("SELECT id FROM schemaMigration", []).map { try $0.requiredString("id") } }
            #expect(Set(applied) == Set(PostgresCatalogDatabase.migrationIDs))
            #expect(applied.count == 5 + SharedCatalogMigrations.all.count)
            #expect(PostgresCatalogDatabase.migrationIDs.last == SharedCatalogMigrations.all.last?.id, "the shared migrations come last")
            #expect(try await databases[0].integrityProblems() == [])
            _ = try await databases[0].write { try $0.execute("DROP SCHEMA \(schema) CASCADE") }
            for database in databases { await database.close() }
        }

        @Test("a catalog a later release migrated is refused with both releases named, and nothing in it changes")
        func laterCatalogIsRefusedUntouched() async throws {
            try await PostgresTestEnvironment.withCatalog { database, schema in
                #expect(try await database.read { try $0.scalar("SELECT value FROM storeSetting WHERE key = 'schemaRelease'") }
                        == .text(SchemaHistory.release))
                try await database.write { transaction in
                    try transaction.execute("INSERT INTO schemaMigration (id) VALUES ('v99: from the future')")
                    try transaction.execute("UPDATE storeSetting SET value = '9.1.0' WHERE key = 'schemaRelease'")
                }
                let snapshot = { () async throws -> [String] in
                    try await database.read { transaction in
                        try transaction.query("SELECT id FROM schemaMigration ORDER BY id", []).map { try $0.requiredString("id") }
                            + transaction.query("SELECT key || '=' || value AS kv FROM storeSetting ORDER BY key", []).map { try $0.requiredString("kv") }
                    }
                }
                let before = try await snapshot()
                let refused = await databaseError {
                    let other = try await PostgresCatalogDatabase.connect(url: PostgresTestEnvironment.url(schema: schema),
                                                                          logger: PostgresTestEnvironment.logger)
                    await other.close()
                }
                #expect(refused?.kind == .newerSchema)
                #expect(refused?.message.contains("attach 9.1.0") == true, "\(String(describing: refused))")
                #expect(refused?.message.contains("attach \(SchemaHistory.release)") == true)
                #expect(refused?.message.contains("v99: from the future") == true)
                #expect(try await snapshot() == before)
            }
        }

        @Test("the triggers keep one change row per record, latest last; cascades and restricts match SQLite's schema")
        func triggersFeedChangesInOrder() async throws {
            try await PostgresTestEnvironment.withCatalog { database, _ in
                let hash = String(repeating: "ab", count: 32)
                try await database.write { transaction in
                    let now = SQLValue.date(Date())
                    for id in ["n1", "n2"] {
                        try transaction.execute("INSERT INTO note (id, title, body, createdAt, updatedAt, clock) VALUES (?, 't', 'b', ?, ?, 'c1')", [.text(id), now, now])
                    }
                    try transaction.execute("INSERT INTO blob (hash, byteCount, state, createdAt) VALUES (?, 3, 'present', ?)", [.text(hash), now])
                    try transaction.execute("""
                        INSERT INTO attachment (id, noteId, position, blobHash, mediaType, filename, createdAt, updatedAt)
                        VALUES ('a1', 'n1', 0, ?, 'image/png', 'a.png', ?, ?)
                        """, [.text(hash), now, now])
                    try transaction.execute("UPDATE note SET title = 'new', clock = 'c2' WHERE id = 'n1'")
                    try transaction.execute("INSERT INTO tombstone (entity, id, clock) VALUES ('attachment', 'a9', 'c3')")
                }
                let feed = try await database.read { transaction in
                    try transaction.query("SELECT seq, entity, id FROM change ORDER BY seq", []).map {
                        (try $0.requiredInt64("seq"), try $0.requiredString("entity"), try $0.requiredString("id"))
                    }
                }
                #expect(feed.map { "\($0.1):\($0.2)" } == ["note:n2", "attachment:a1", "note:n1", "attachment:a9"])
                #expect(feed.map(\.0) == feed.map(\.0).sorted())
                let metadata = try await database.read { try $0.scalar("SELECT metadata FROM attachment WHERE id = 'a1'") }
                #expect(metadata == .text("{}"))

                let restricted = await databaseError { _ = try await database.write { try $0.execute("DELETE FROM blob") } }
                #expect(restricted?.kind == .constraint)
                try await database.write { try $0.execute("DELETE FROM note WHERE id = 'n1'") }
                let attachments = try await database.read { try $0.scalar("SELECT count(*) FROM attachment") }
                #expect(attachments == .integer(0))
                #expect(try await database.integrityProblems() == [])
            }
        }
    }

    @Suite("PostgreSQL restarts", .serialized)
    struct Restart {
        @Test("while PostgreSQL is stopped a transaction fails .unavailable; after it starts again the same catalog works",
              .enabled(if: PostgresTestEnvironment.canRestart, "needs ATTACH_POSTGRES_SERVICE_SCRIPT (scripts/with-services.sh sets it)"))
        func survivesRestart() async throws {
            // A PostgreSQL of this test's own, so stopping it disturbs no other test.
            let directory = FileManager.default.temporaryDirectory.appending(path: "pg-restart-\(UUID().uuidString.prefix(8))")
                .path(percentEncoded: false)
            try FileManager.default.createDirectory(atPath: directory + "/pg", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/pg"
            let port = try PostgresTestEnvironment.freePort()
            try #require(try await PostgresTestEnvironment.runServiceScript(["start", state, String(port)]) == 0)
            do {
                try await Self.restart(state: state, port: port)
            } catch {
                _ = try? await PostgresTestEnvironment.runServiceScript(["destroy", state])
                throw error
            }
            _ = try? await PostgresTestEnvironment.runServiceScript(["destroy", state])
        }

        static func restart(state: String, port: Int) async throws {
            let password = try String(contentsOfFile: state + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let url = "postgres://attach:\(password)@127.0.0.1:\(port)/attach?schema=\(PostgresTestEnvironment.freshSchema())"
            let database = try await PostgresCatalogDatabase.connect(url: url, logger: PostgresTestEnvironment.logger)
            try await database.write { try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('before', '1')") }
            // Warm more than one pooled connection, so dead idle connections are met after the restart.
            async let one = database.read { try $0.scalar("SELECT count(*) FROM storeSetting") }
            async let two = database.read { try $0.scalar("SELECT count(*) FROM storeSetting") }
            _ = try await (one, two)

            #expect(try await PostgresTestEnvironment.runServiceScript(["stop", state]) == 0)
            let write = await databaseError {
                _ = try await database.write { try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('down', '1')") }
            }
            let read = await databaseError { _ = try await database.read { try $0.scalar("SELECT 1") } }
            let started = try await PostgresTestEnvironment.runServiceScript(["start", state, String(port)])
            #expect(write?.kind == .unavailable)
            #expect(read?.kind == .unavailable)
            try #require(started == 0)

            try await database.write { try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('after', '1')") }
            let keys = try await database.read { try $0.query("SELECT key FROM storeSetting WHERE key <> 'schemaRelease' ORDER BY key", []).map { try $0.requiredString("key") } }
            #expect(keys == ["after", "before"])
            await database.close()
        }
    }
}

@Suite("PostgreSQL services required")
struct RequiredPostgresTests {
    @Test("when ATTACH_REQUIRE_SERVICES=1, ATTACH_TEST_POSTGRES is set")
    func postgresEnvironmentPresentWhenRequired() {
        guard PostgresTestEnvironment.servicesRequired else { return }
        #expect(PostgresTestEnvironment.isAvailable, """
            ATTACH_REQUIRE_SERVICES=1 but ATTACH_TEST_POSTGRES is missing: the PostgreSQL tests would be \
            skipped. Run them through scripts/with-services.sh.
            """)
    }
}
