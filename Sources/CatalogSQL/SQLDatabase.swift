/// The SQL database behind a catalog: SQLite through GRDB (the default) or PostgreSQL.
///
/// The store writes its catalog logic once, as SQL both databases understand (`?` placeholders,
/// `ON CONFLICT`, no database-specific functions), and runs it through this protocol.
/// Implementations give:
/// - ``write(_:)``: one transaction at a time across every process and server sharing the
///   catalog (SQLite's immediate transactions; a PostgreSQL advisory lock), committed durably;
/// - ``write(locking:_:)``: a transaction that only waits for writers of the same keys (and for
///   every ``write(_:)``), where the database can run writers side by side (PostgreSQL);
/// - ``read(_:)``: a consistent snapshot;
/// - bodies run synchronously on a thread outside Swift's cooperative pool.
public protocol SQLDatabase: Sendable {
    /// Which database this is.
    var dialect: SQLDialect { get }

    /// Runs `body` in a write transaction that no other writer overlaps; commits when it
    /// returns, rolls back when it throws.
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T

    /// Runs `body` in a write transaction that overlaps no ``write(_:)`` and no other
    /// `write(locking:)` sharing one of `keys`; writers of different keys may run side by side.
    /// `body` must only change rows that belong to its keys (for example, a note's own row and
    /// its attachments under the note's key): what keys mean is the caller's contract. Commits
    /// durably, rolls back when `body` throws. A database that runs one writer at a time
    /// (SQLite) treats it as ``write(_:)``, which is the default.
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    func write<T: Sendable>(locking keys: Set<String>, _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T

    /// Runs `body` on a consistent, read-only snapshot.
    /// - Throws: what `body` throws, or ``SQLDatabaseError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T

    /// Problems the database finds in itself (SQLite's integrity and foreign-key checks); empty
    /// when healthy.
    func integrityProblems() async throws -> [String]
}

/// The SQL flavour of a ``SQLDatabase``, for the few statements that differ.
public enum SQLDialect: String, Sendable {
    /// SQLite (GRDB).
    case sqlite
    /// PostgreSQL (postgres-nio).
    case postgres
}

/// An open transaction. Statements use `?` placeholders. Not thread-safe: use it only inside
/// the body it was given to.
public protocol SQLTransaction {
    /// Runs a statement; returns how many rows it changed.
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int

    /// Runs a query; returns every row.
    /// - Throws: ``SQLDatabaseError``.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
}

extension SQLDatabase {
    /// One writer at a time: the same as ``write(_:)``, for databases that serialise every writer.
    public func write<T: Sendable>(locking keys: Set<String>, _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await write(body)
    }
}

extension SQLTransaction {
    /// Runs a statement without arguments.
    @discardableResult
    public func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    /// The first row of a query, if any.
    public func queryOne(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLRow? {
        try query(sql, arguments).first
    }

    /// The first column of the first row, if any.
    public func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        try query(sql, arguments).first?.values.first
    }
}

/// A database failure, classified so the store can tell a user what to do.
public struct SQLDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable {
        /// The disk under the database is full.
        case full
        /// The database file is damaged or not a database.
        case corrupt
        /// The database server cannot be reached or dropped the connection.
        case unavailable
        /// A constraint (unique, foreign key, check) refused the statement.
        case constraint
        /// The catalog was migrated by a newer release; it is left as it is (``SchemaHistory``).
        case newerSchema
        /// Anything else.
        case other
    }

    /// What kind of failure.
    public let kind: Kind
    /// The database's own message.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
