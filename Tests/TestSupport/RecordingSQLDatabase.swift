import CatalogSQL
import Synchronization

/// A catalog database that runs everything on the database it wraps and remembers each
/// distinct statement it was given, with the arguments of its first run: what a store really
/// sends its catalog, for tests that then ask the catalog how it plans each one.
public final class RecordingSQLDatabase: SQLDatabase {
    /// One statement as the store ran it.
    public struct Statement: Sendable {
        /// The SQL text, with `?` placeholders.
        public let sql: String
        /// The arguments of its first run.
        public let arguments: [SQLValue]
    }

    /// The database that does the work.
    public let wrapped: any SQLDatabase
    private let recorded = Mutex<(order: [String], statements: [String: Statement], on: Bool)>(([], [:], true))

    /// Records what runs on `wrapped`.
    public init(_ wrapped: any SQLDatabase) {
        self.wrapped = wrapped
    }

    public var dialect: SQLDialect { wrapped.dialect }

    /// Every distinct statement recorded, in the order each was first run.
    public var statements: [Statement] {
        recorded.withLock { state in state.order.compactMap { state.statements[$0] } }
    }

    /// Stops recording (what runs afterwards, a test's own checks, is not the store's).
    public func stopRecording() {
        recorded.withLock { $0.on = false }
    }

    fileprivate func record(_ sql: String, _ arguments: [SQLValue]) {
        recorded.withLock { state in
            guard state.on, state.statements[sql] == nil else { return }
            state.order.append(sql)
            state.statements[sql] = Statement(sql: sql, arguments: arguments)
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await wrapped.write { transaction in try body(RecordingTransaction(wrapped: transaction, database: self)) }
    }

    public func write<T: Sendable>(locking keys: Set<String>, _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await wrapped.write(locking: keys) { transaction in try body(RecordingTransaction(wrapped: transaction, database: self)) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await wrapped.read { transaction in try body(RecordingTransaction(wrapped: transaction, database: self)) }
    }

    public func integrityProblems() async throws -> [String] {
        try await wrapped.integrityProblems()
    }
}

/// A transaction that tells its ``RecordingSQLDatabase`` each statement before running it.
private struct RecordingTransaction: SQLTransaction {
    let wrapped: any SQLTransaction
    let database: RecordingSQLDatabase

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        database.record(sql, arguments)
        return try wrapped.execute(sql, arguments)
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        database.record(sql, arguments)
        return try wrapped.query(sql, arguments)
    }
}
