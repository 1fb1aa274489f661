import CatalogSQL
import Foundation
import GRDB

/// The default catalog database: one SQLite file in the store folder, through GRDB.
///
/// WAL mode with `synchronous = FULL`, so a committed transaction survives a crash or power
/// loss; immediate write transactions and a busy timeout, so several processes can write one
/// store. `DatabasePool` serialises writes on its own queue and runs reads concurrently, off
/// Swift's cooperative pool (reads on the store's catalog-read threads). Migrations are
/// ``CatalogSchema``'s.
final class SQLiteCatalogDatabase: SQLDatabase {
    /// The underlying database.
    let pool: DatabasePool
    let dialect = SQLDialect.sqlite

    /// Opens (creating and migrating) the catalog file at `path`. Blocks.
    /// - Throws: ``AttachmentStore/Error/notAStore(path:reason:)`` when the file is not a
    ///   readable SQLite catalog, ``AttachmentStore/Error/catalog(_:)`` for other failures.
    init(path: String, busyTimeout: TimeInterval) throws(AttachmentStore.Error) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "AttachmentStore.catalog"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        // A new catalog is made private (0600) before SQLite opens it; SQLite gives its -wal and
        // -shm files the catalog's mode.
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 { Glibc.close(fd) }
        do {
            // An existing catalog is read first, read-only: one a newer release migrated is
            // refused before this code writes a byte of it (even WAL mode is a write). One that
            // already has every migration is not handed to the migrator at all (most opens).
            pool = try Self.oneOpeningAtATime(in: path) { () throws -> DatabasePool in
                let upToDate = fd < 0 ? try Self.refuseNewerSchema(at: path) : false
                let pool = try DatabasePool(path: path, configuration: configuration)
                // GRDB's pool sets its writer to `synchronous = NORMAL` while it turns WAL on,
                // after `prepareDatabase` ran: in WAL mode NORMAL does not flush a commit, so a
                // power loss could take back an acknowledged one. The writer is set back to FULL.
                try pool.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    // The writer keeps a large transaction's pages in memory (up to 16 MiB,
                    // SQLite's default is 2 MiB): a peer's page of thousands of changes is then
                    // written to the WAL once at its commit instead of spilled to it midway and
                    // written again.
                    try db.execute(sql: "PRAGMA cache_size = -16384")
                    // A statement that fires triggers (the change feed, the search index) keeps a
                    // journal of its own, to undo just itself if it fails: in memory, not in a
                    // temporary file written four bytes and a page at a time (applying a peer's
                    // page of 5,000 changes wrote 1.6 GB there, 80 % of the time it took).
                    try db.execute(sql: "PRAGMA temp_store = MEMORY")
                }
                if !upToDate { try Self.migrate(pool) }
                return pool
            }
        } catch let error as SQLDatabaseError where error.kind == .newerSchema {
            throw .catalogFromNewerRelease(error)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw .notAStore(path: path, reason: "catalog.sqlite is not a readable SQLite catalog (\(error.message ?? "corrupt"))")
        } catch let error as DatabaseError {
            throw .catalog(Self.classified(error))
        } catch let error as SQLDatabaseError where error.kind == .corrupt {
            // A migration that found rows it must not apply over (`v10`: a malformed blob hash).
            throw .catalogDamaged(error)
        } catch let error as SQLDatabaseError {
            throw .catalog(error)
        } catch {
            throw .catalog(SQLDatabaseError(.other, String(describing: error)))
        }
    }

    /// Runs `body`, the opening of the catalog at `path`, while holding an exclusive `flock` on
    /// the folder that holds it, so that processes open one store one after another. GRDB's pool,
    /// opening a catalog whose write-ahead log is absent (nobody has it open), writes one by
    /// creating and dropping a table; a process that had just read the schema without the log
    /// then failed its next statement with "no such table" (three commands started together on
    /// a store nobody had open: about one round in ten, `CatalogConcurrencyTests`). Opening
    /// takes milliseconds; a process that finds the folder locked waits for them. Blocks.
    private static func oneOpeningAtATime<T>(in path: String, _ body: () throws -> T) throws -> T {
        let folder = POSIXFile.parentFolder(of: path)
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return try body() }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Applies the migrations the catalog lacks; when it applied any, records this release as
    /// the one that last migrated it (``SchemaHistory``).
    private static func migrate(_ pool: DatabasePool) throws {
        let migrator = CatalogSchema.migrator
        let before = try pool.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(pool)
        let known = try pool.read { db in try migrator.appliedIdentifiers(db) }
        guard known != before else { return }
        try pool.write { db in
            try db.execute(sql: "INSERT INTO storeSetting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           arguments: [SchemaHistory.releaseSettingKey, SchemaHistory.release])
        }
    }

    /// Throws ``SQLDatabaseError`` `.newerSchema` when the catalog at `path` records migrations
    /// ``CatalogSchema`` does not have; returns whether it has every one this code knows (then
    /// there is nothing to migrate). Opens it read-only; changes nothing.
    private static func refuseNewerSchema(at path: String) throws -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        let (applied, release) = try whileRecovering { () throws -> ([String], String?) in
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let history = try readHistory(queue)
            try queue.close()
            return history
        }
        let known = CatalogSchema.migrator.migrations
        try SchemaHistory.refuseNewer(applied: applied, known: known, recordedRelease: release, location: path)
        return Set(applied) == Set(known)
    }

    /// Runs `body` again while SQLite answers `SQLITE_BUSY` for up to about two seconds. A
    /// read-only connection cannot rebuild the write-ahead log's index itself: while another
    /// process does (the first to open a store whose log a crash left behind), SQLite says busy
    /// at once, whatever the busy timeout. Commands starting together failed so, 1 run in 30,
    /// before openings took turns (``oneOpeningAtATime(in:_:)``).
    private static func whileRecovering<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                usleep(20_000)
            }
        }
    }

    /// The migration ids a catalog records and the release that last migrated it.
    private static func readHistory(_ queue: DatabaseQueue) throws -> ([String], String?) {
        try queue.read { db -> ([String], String?) in
            guard try db.tableExists("grdb_migrations") else { return ([], nil) }
            let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            let release = try db.tableExists("storeSetting")
                ? try String.fetchOne(db, sql: "SELECT value FROM storeSetting WHERE key = ?", arguments: [SchemaHistory.releaseSettingKey])
                : nil
            return (applied, release)
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        do {
            return try await pool.write { db in try body(GRDBTransaction(db: db)) }
        } catch let error as DatabaseError {
            throw Self.classified(error)
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        do {
            // GRDB's synchronous read, on a thread of our own: its reader queue runs the body
            // right there, one hop in all (see `BlockingPool.runCatalogRead`).
            let pool = self.pool
            return try await BlockingPool.runCatalogRead { try pool.read { db in try body(GRDBTransaction(db: db)) } }
        } catch let error as DatabaseError {
            throw Self.classified(error)
        }
    }

    /// Closes the catalog: every connection, the WAL checkpointed into the file and removed.
    /// Blocks. Using it afterwards throws.
    func close() throws {
        try pool.close()
    }

    /// Writes a consistent copy of the whole catalog to a new file at `path` with SQLite's online
    /// backup, while other connections go on reading and writing; the copy is durable when this
    /// returns. Blocks.
    func snapshot(to path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // Private like the catalog it copies (0600), before SQLite creates it.
        let created = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw SystemError("create \(path)") }
        Glibc.close(created)
        let copy = try DatabaseQueue(path: path, configuration: configuration)
        try pool.backup(to: copy)
        try copy.close()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { Glibc.close(fd) }
        try POSIXFile.sync(fd)
    }

    /// SQLite's `integrity_check` and `foreign_key_check`, and FTS5's check that the notes'
    /// search index matches the notes (the statement is an `INSERT` in form only: it changes
    /// nothing, but SQLite accepts it only on a writer).
    func integrityProblems() async throws -> [String] {
        let searchProblems: [String] = try await write { transaction in
            do {
                try transaction.execute("INSERT INTO note_search (note_search, rank) VALUES ('integrity-check', 1)", [])
                return []
            } catch let error as SQLDatabaseError where error.kind == .corrupt || error.kind == .other {
                return ["the notes' search index does not match the notes (\(error.message))"]
            }
        }
        return try await searchProblems + read { transaction in
            var problems = try transaction.query("PRAGMA integrity_check", []).compactMap { try $0.string("integrity_check") }
                .filter { $0 != "ok" }
            problems += try transaction.query("PRAGMA foreign_key_check", []).map { row in
                "row \(try row.int64("rowid") ?? 0) of \(try row.string("table") ?? "?") references a missing \(try row.string("parent") ?? "?")"
            }
            return problems
        }
    }

    /// The catalog error a GRDB failure is.
    static func classified(_ error: DatabaseError) -> SQLDatabaseError {
        let message = error.message ?? error.description
        return switch error.resultCode {
        case .SQLITE_FULL: SQLDatabaseError(.full, "No space left on device")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: SQLDatabaseError(.corrupt, message)
        case .SQLITE_CONSTRAINT: SQLDatabaseError(.constraint, message)
        default: SQLDatabaseError(.other, message)
        }
    }
}

/// A GRDB `Database` inside a transaction, as the store's SQL seam.
struct GRDBTransaction: SQLTransaction {
    let db: Database

    /// Runs a statement through the connection's statement cache, like ``query(_:_:)``; a text
    /// of several statements (a migration step) is compiled and run statement by statement.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        do {
            let values = Self.statementArguments(arguments)
            if let statement = try? db.cachedStatement(sql: sql) {
                try statement.execute(arguments: values)
            } else {
                try db.execute(sql: sql, arguments: values)
            }
            return db.changesCount
        } catch let error as DatabaseError {
            throw SQLiteCatalogDatabase.classified(error)
        }
    }

    /// Runs a query through the connection's statement cache: each text is compiled once per
    /// connection (compiling, with GRDB's authorizer, cost more than the read itself), and every
    /// row shares the one array of column names.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        do {
            let statement = try db.cachedStatement(sql: sql)
            let columns = statement.columnNames
            let cursor = try Row.fetchCursor(statement, arguments: Self.statementArguments(arguments))
            var rows: [SQLRow] = []
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: columns, values: row.databaseValues.map(Self.sqlValue)))
            }
            return rows
        } catch let error as DatabaseError {
            throw SQLiteCatalogDatabase.classified(error)
        }
    }

    /// `arguments` as GRDB takes them. Through GRDB's initializer for optional values: its
    /// initializer for a sequence of one value type maps it with a key path that Swift builds
    /// at run time on every call (about 2 % of applying a peer's page, `perf record`).
    static func statementArguments(_ arguments: [SQLValue]) -> StatementArguments {
        StatementArguments(arguments.map { databaseValue($0) as (any DatabaseValueConvertible)? })
    }

    static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }

    static func sqlValue(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }
}
