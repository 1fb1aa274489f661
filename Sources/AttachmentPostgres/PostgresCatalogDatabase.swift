import AsyncCoordination
import CatalogSQL
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// A catalog in PostgreSQL: a ``SQLDatabase`` over postgres-nio, for catalogs shared by several
/// processes and servers.
///
/// Each catalog lives in one PostgreSQL schema (`public` unless the URL names another with
/// `?schema=`), created if missing and set as the search path of every transaction
/// (`set_config('search_path', …, true)`, sent with its `BEGIN`, not as a startup parameter: a
/// pooler such as PgBouncer in transaction mode refuses those), so one database can hold many
/// catalogs. ``connect(url:logger:connections:)`` brings the schema up to date.
///
/// What it promises:
/// - **Writes** (``write(_:)``) are serialised across every process and server using the catalog:
///   `BEGIN`, then `pg_advisory_xact_lock` on a key derived from the schema name (see
///   ``writeLockKey``), the body, `COMMIT` (`ROLLBACK` when the body throws). Within one process
///   writers also queue in memory first, so waiting writers do not hold threads or connections.
/// - **Keyed writes** (``write(locking:_:)``) take that lock shared and an exclusive advisory
///   lock per key (see `lockKey(for:)`, taken in one order, so two keyed writers never wait for
///   each other in a cycle): writers of different keys run side by side, in every process,
///   and none overlaps a ``write(_:)``, which waits for them all and holds up new ones while it
///   waits.
/// - **The change feed** stays in commit order: its triggers are deferred to `COMMIT` and take
///   the feed's advisory lock (migration `v9`), so a row's `seq` is drawn while no other
///   transaction can commit, and a reader that sees `seq` N has every smaller one.
/// - **Reads** (``read(_:)``) run in `REPEATABLE READ READ ONLY` transactions: one snapshot.
/// - **Bodies** run synchronously on a dedicated `NIOThreadPool` (one thread per connection),
///   never on Swift's cooperative pool or an event loop; their statements wait for PostgreSQL
///   there.
/// - **Statements** use `?` placeholders (rewritten to `$n` outside literals, quoted identifiers,
///   dollar quotes and comments). A failing statement is rolled back to a savepoint taken before
///   it, so the body may catch its error and go on, as with SQLite.
/// - **Binding**: integer → `int8`, real → `float8`, text → `text`, blob → `bytea`, null → a NULL
///   of unspecified type that PostgreSQL infers from its use (where it cannot, e.g. `? IS NULL`
///   alone, cast it: `CAST(? AS TEXT)`). PostgreSQL does not convert text to numbers implicitly
///   as SQLite does: bind the column's type.
/// - **Columns**: int2/4/8 and oid → `.integer`, bool → `.integer(1/0)`, float4/8 → `.real`,
///   numeric → `.integer` when integral (else `.real`), text/varchar/char/name/json/uuid → `.text`,
///   bytea → `.blob`, NULL → `.null`; other types throw `.other` (cast them in the query).
///   Column names are as PostgreSQL returns them (unquoted names in lower case).
/// - **Connections**: up to `connections` (default 4, or the URL's `pool_max_conns`) from
///   postgres-nio's `PostgresClient` pool, over TCP or a Unix socket,
///   opened lazily and kept alive. A transaction that gets no connection within 5 s, from a
///   PostgreSQL that does not answer a probe, fails `.unavailable` with the reason (refused,
///   login failed; a PostgreSQL that answers is waited on up to 60 s), so while it is down
///   transactions fail and once it is back they succeed again, with nothing restarted. A
///   connection that fails at the connection level is closed, never reused; a transaction
///   that finds its connection dead before `BEGIN` went through retries once on another.
/// - **Errors** are ``SQLDatabaseError``: connection refused, closed or timed out, and SQLSTATE
///   08xxx, 57P01–57P03, 53300 → `.unavailable`; 23xxx → `.constraint`; 53100 → `.full`;
///   others → `.other` with PostgreSQL's message and SQLSTATE. A `COMMIT` that fails with
///   `.unavailable` may or may not have committed.
/// - **TLS** as the URL's `sslmode` says: `prefer` by default (TLS where the server offers it),
///   `disable`, `require`, `verify-ca` or `verify-full` (with `sslrootcert`).
public final class PostgresCatalogDatabase: SQLDatabase {
    /// Always ``SQLDialect/postgres``.
    public var dialect: SQLDialect { .postgres }

    /// The PostgreSQL schema holding this catalog's tables.
    public let schema: String

    /// The key of the transaction-level advisory lock every writer of this catalog takes:
    /// FNV-1a (64 bits) of `attachmentstore.catalog.<schema>`, the same in every process.
    public let writeLockKey: Int64

    /// The ids of the migrations, in order (the same ids as the SQLite catalog's), as recorded in
    /// the catalog's `schemaMigration(id)` table.
    public static var migrationIDs: [String] { PostgresCatalogSchema.migrations.map(\.id) }

    private let url: CatalogURL
    private let connections: CatalogConnections
    private let threadPool: NIOThreadPool
    /// One writer of this process at a time, in order, before the advisory lock: a waiting
    /// writer holds no transaction thread or connection. Not cancellable, like GRDB's writer queue.
    private let writeGate = AsyncGate(slots: 1)
    private let logger: Logger

    private init(url: CatalogURL, connections: Int, logger: Logger) throws {
        self.schema = url.schema
        self.writeLockKey = url.writeLockKey
        self.url = url
        self.logger = logger
        self.connections = try CatalogConnections(url: url, capacity: connections, logger: logger)
        self.threadPool = NIOThreadPool(numberOfThreads: connections)
        self.threadPool.start()
    }

    /// Checks that `url` is a catalog URL this type can open (see ``connect(url:logger:connections:)``),
    /// filling what it leaves out from libpq's `PG*` variables, without connecting.
    /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong, never the password.
    public static func validate(url: String) throws {
        _ = try CatalogURL(url)
    }

    /// Opens the catalog at `url`, a connection URI as libpq reads it
    /// (`postgres://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE][?PARAMETERS]`, HOST a name, an
    /// address or a Unix socket's directory; what it leaves out comes from libpq's `PG*`
    /// variables and defaults; `?schema=` names the schema, 1–63 of `a-z`, `0-9`, `_`, not
    /// starting with a digit or `pg_`), creating its schema when missing and applying the
    /// migrations it lacks (see ``migrate()``).
    /// - Parameter connections: the most connections (and transaction threads) it uses, at
    ///   least 1, unless the URL's `pool_max_conns` says otherwise.
    /// - Throws: ``SQLDatabaseError``: `.other` for a malformed URL or refused login,
    ///   `.unavailable` when PostgreSQL cannot be reached.
    public static func connect(url: String, logger: Logger, connections: Int = 4) async throws -> PostgresCatalogDatabase {
        let parsed = try CatalogURL(url)
        let database = try PostgresCatalogDatabase(url: parsed, connections: max(1, parsed.poolSize ?? connections), logger: logger)
        do {
            try await database.connections.check()
            try await database.migrate()
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Closes the connections and stops the transaction threads, after the transactions running
    /// now have finished. Transactions started afterwards throw `.unavailable`.
    public func close() async {
        try? await threadPool.shutdownGracefully()
        await connections.close()
    }

    /// Creates the schema if missing and applies the migrations the catalog lacks, all in one
    /// transaction under the catalog's write lock, so servers starting together apply each once.
    /// - Returns: the ids it applied, in order; empty when the catalog was up to date.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    public func migrate() async throws -> [String] {
        let schema = self.schema
        return try await write { transaction in
            if try transaction.queryOne("SELECT 1 FROM pg_namespace WHERE nspname = ?", [.text(schema)]) == nil {
                try transaction.execute("CREATE SCHEMA \(schema)")
            }
            try transaction.execute("CREATE TABLE IF NOT EXISTS schemaMigration (id TEXT PRIMARY KEY)")
            let appliedIDs = try transaction.query("SELECT id FROM schemaMigration", []).map { try $0.requiredString("id") }
            let hasSettings = try transaction.queryOne("SELECT to_regclass('storeSetting') IS NOT NULL AS present", [])?.bool("present") ?? false
            let release = hasSettings
                ? try transaction.queryOne("SELECT value FROM storeSetting WHERE key = ?", [.text(SchemaHistory.releaseSettingKey)])?.string("value")
                : nil
            // A catalog a newer release migrated is refused; the transaction rolls back untouched.
            try SchemaHistory.refuseNewer(applied: appliedIDs, known: Self.migrationIDs, recordedRelease: release,
                                          location: "\(schema) on PostgreSQL")
            let applied = Set(appliedIDs)
            var applying: [String] = []
            for migration in PostgresCatalogSchema.migrations where !applied.contains(migration.id) {
                // Rows a shared migration must not apply over fail it here, before its statements.
                let shared = SharedCatalogMigrations.all.first { $0.id == migration.id }
                try shared?.refuseDamage(in: transaction, .postgres)
                for statement in migration.statements { try transaction.execute(statement) }
                try shared?.fill(in: transaction, .postgres)
                try transaction.execute("INSERT INTO schemaMigration (id) VALUES (?)", [.text(migration.id)])
                applying.append(migration.id)
            }
            if !applying.isEmpty {
                try transaction.execute(
                    "INSERT INTO storeSetting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(SchemaHistory.releaseSettingKey), .text(SchemaHistory.release)])
            }
            return applying
        }
    }

    /// Runs `body` in a transaction no other writer of this catalog overlaps, in any process:
    /// `BEGIN`, `pg_advisory_xact_lock(writeLockKey)`, body, `COMMIT`; `ROLLBACK` when it throws.
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        let key = writeLockKey
        return try await writeGate.withSlot {
            try await self.run(begin: "BEGIN", then: { try $0.control("SELECT pg_advisory_xact_lock($1)", [.integer(key)]) }, body)
        }
    }

    /// Runs `body` in a transaction that overlaps no ``write(_:)`` and no writer of any of
    /// `keys`, in any process: `BEGIN`, `pg_advisory_xact_lock_shared(writeLockKey)`, then
    /// `pg_advisory_xact_lock` of each key's lock in ascending order, body, `COMMIT`. It skips the
    /// in-process queue of ``write(_:)``, so while it waits for a key it holds a connection.
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    public func write<T: Sendable>(locking keys: Set<String>, _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        let locks = Set(keys.map(url.lockKey(for:))).sorted()
        let statement = "SELECT pg_advisory_xact_lock_shared($1)"
            + locks.indices.map { ", pg_advisory_xact_lock($\($0 + 2))" }.joined()
        let arguments = [SQLValue.integer(writeLockKey)] + locks.map(SQLValue.integer)
        // The target list is evaluated left to right: the shared lock first, then the keys in order.
        return try await run(begin: "BEGIN", then: { try $0.control(statement, arguments) }, body)
    }

    /// Runs `body` on one snapshot: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`, body,
    /// `COMMIT`. Writing statements fail (SQLSTATE 25006, `.other`).
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await run(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", then: { _ in }, body)
    }

    /// PostgreSQL enforces the catalog's constraints itself, so this only reports what could
    /// still be wrong: attachments whose note or blob row is missing, image entries whose blob
    /// row is missing, blob contents without a blob row (all forbidden by foreign keys, so
    /// found only if those were dropped or disabled), constraints in the catalog's schema left
    /// `NOT VALID`, and invalid indexes (left by a failed `CREATE INDEX CONCURRENTLY`).
    /// Empty when healthy.
    /// - Throws: ``SQLDatabaseError``.
    public func integrityProblems() async throws -> [String] {
        try await read { transaction in
            var problems: [String] = []
            for row in try transaction.query("SELECT a.id FROM attachment a LEFT JOIN note n ON n.id = a.noteId WHERE n.id IS NULL ORDER BY a.id", []) {
                problems.append("attachment \(try row.requiredString("id")) refers to a missing note")
            }
            for row in try transaction.query("SELECT a.id FROM attachment a LEFT JOIN blob b ON b.hash = a.blobHash WHERE b.hash IS NULL ORDER BY a.id", []) {
                problems.append("attachment \(try row.requiredString("id")) refers to a missing blob")
            }
            for row in try transaction.query("SELECT i.key FROM imageEntry i LEFT JOIN blob b ON b.hash = i.blobHash WHERE b.hash IS NULL ORDER BY i.key", []) {
                problems.append("image entry \(try row.requiredString("key")) refers to a missing blob")
            }
            for row in try transaction.query("SELECT c.hash FROM blobContent c LEFT JOIN blob b ON b.hash = c.hash WHERE b.hash IS NULL ORDER BY c.hash", []) {
                problems.append("blob content \(try row.requiredString("hash")) has no blob row")
            }
            for row in try transaction.query("""
                SELECT c.conname::text AS name, t.relname::text AS tablename FROM pg_constraint c
                JOIN pg_class t ON t.oid = c.conrelid
                WHERE c.connamespace = current_schema()::regnamespace AND NOT c.convalidated ORDER BY 1
                """, []) {
                problems.append("constraint \(try row.requiredString("name")) on \(try row.requiredString("tablename")) is not validated")
            }
            for row in try transaction.query("""
                SELECT c.relname::text AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid ORDER BY 1
                """, []) {
                problems.append("index \(try row.requiredString("name")) is invalid")
            }
            return problems
        }
    }

    // MARK: Transactions

    /// Runs one transaction on a leased connection and a transaction thread. A connection that
    /// turns out dead before `BEGIN` went through (one PostgreSQL closed while it was idle) is
    /// dropped and the transaction tried once more on another: nothing of it had run.
    private func run<T: Sendable>(
        begin: String,
        then prologue: @escaping @Sendable (PostgresTransaction) throws -> Void,
        _ body: @escaping @Sendable (any SQLTransaction) throws -> T
    ) async throws -> T {
        let threadPool = self.threadPool
        let logger = self.logger
        let schema = self.schema
        var retried = false
        while true {
            do {
                return try await connections.withConnection { connection in
                    do {
                        return try await threadPool.runIfActive {
                            try Self.transaction(connection: connection, logger: logger, schema: schema, begin: begin,
                                                 prologue: prologue, body: body)
                        }
                    } catch let error as NIOThreadPoolError.ThreadPoolInactive {
                        throw PostgresErrors.classify(error)
                    }
                }
            } catch let failure as BeginFailed {
                guard !retried else { throw failure.error }
                retried = true
            }
        }
    }

    /// `BEGIN` failed on a connection that is now closed.
    private struct BeginFailed: Error {
        var error: SQLDatabaseError
    }

    /// Blocking, on a transaction thread: begin (with the catalog's schema as the transaction's
    /// search path, both in one round trip), run `prologue` and `body`, commit or roll back.
    /// A connection that failed at the connection level, or could not be rolled back, is closed
    /// so that the pool never hands it out again.
    private static func transaction<T>(
        connection: PostgresConnection, logger: Logger, schema: String, begin: String,
        prologue: (PostgresTransaction) throws -> Void,
        body: (any SQLTransaction) throws -> T
    ) throws -> T {
        let transaction = PostgresTransaction(connection: connection, logger: logger)
        do {
            try transaction.control(pipelined: [(begin, []), ("SELECT set_config('search_path', $1, true)", [.text(schema)])])
        } catch let error as SQLDatabaseError {
            guard transaction.broken else {
                rollBack(transaction, on: connection)
                throw error
            }
            discard(connection)
            throw BeginFailed(error: error)
        }
        let value: T
        do {
            try prologue(transaction)
            value = try body(transaction)
        } catch {
            rollBack(transaction, on: connection)
            throw error
        }
        do {
            try transaction.control("COMMIT")
        } catch {
            if transaction.broken { discard(connection) }
            throw error
        }
        return value
    }

    /// Rolls `transaction` back; a connection that is broken, or whose `ROLLBACK` fails (so it
    /// may still be inside the transaction), is closed instead of going back to the pool.
    private static func rollBack(_ transaction: PostgresTransaction, on connection: PostgresConnection) {
        guard !transaction.broken else { return discard(connection) }
        do { try transaction.control("ROLLBACK") } catch { discard(connection) }
    }

    /// Closes `connection`; the pool drops a closed connection when it comes back.
    private static func discard(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in }
    }
}
