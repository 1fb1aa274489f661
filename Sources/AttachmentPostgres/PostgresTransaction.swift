import CatalogSQL
import Logging
import NIOCore
import PostgresNIO

/// A transaction open on one connection, used only on the thread running its body.
///
/// Every statement runs inside a savepoint (`SAVEPOINT`, statement, and `RELEASE` before the
/// next), and a failing statement is rolled back to it, so — as in SQLite — a failed statement
/// leaves the transaction usable when the body catches its error, instead of PostgreSQL's
/// "current transaction is aborted".
final class PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    let logger: Logger
    /// Set when the connection failed at the connection level: it must not be reused.
    private(set) var broken = false
    private var holdsSavepoint = false
    private static let savepoint = "catalog_statement"

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try statement(sql, arguments).metadata.rows ?? 0
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try statement(sql, arguments).rows.map(PostgresValues.row)
    }

    /// Runs `sql` as is, outside any savepoint (`BEGIN`, `COMMIT`, the lock).
    /// - Throws: ``SQLDatabaseError``.
    @discardableResult
    func control(_ sql: String, _ arguments: [SQLValue] = []) throws -> PostgresQueryResult {
        try wait(connection.query(PostgresQuery(unsafeSQL: sql, binds: PostgresValues.bindings(arguments)), logger: logger))
    }

    /// Runs `statements` as they are, outside any savepoint, queued back to back on the
    /// connection (one round trip), in order.
    /// - Throws: the first statement's error, after every statement has answered.
    func control(pipelined statements: [(String, [SQLValue])]) throws {
        let answers = statements.map { sql, arguments in
            connection.query(PostgresQuery(unsafeSQL: sql, binds: PostgresValues.bindings(arguments)), logger: logger)
        }
        var first: (any Error)?
        for answer in answers {
            do { try wait(answer) } catch { first = first ?? error }
        }
        if let first { throw first }
    }

    private func statement(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        let (translated, count) = Placeholders.translate(sql)
        guard count == arguments.count else {
            throw SQLDatabaseError(.other, "statement has \(count) placeholders but \(arguments.count) arguments: \(sql)")
        }
        let query = PostgresQuery(unsafeSQL: translated, binds: PostgresValues.bindings(arguments))
        // Queued back to back on the connection, without a thread hop between them.
        let release = holdsSavepoint ? connection.query(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(Self.savepoint)"), logger: logger) : nil
        let savepoint = connection.query(PostgresQuery(unsafeSQL: "SAVEPOINT \(Self.savepoint)"), logger: logger)
        let result = connection.query(query, logger: logger)
        holdsSavepoint = true
        do {
            if let release { try wait(release) }
            try wait(savepoint)
        } catch {
            _ = try? result.wait()
            throw error
        }
        do {
            return try wait(result)
        } catch let error as SQLDatabaseError {
            if !broken {
                do {
                    try wait(connection.query(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(Self.savepoint)"), logger: logger))
                } catch {
                    broken = true
                }
            }
            throw error
        }
    }

    /// The future's value, waiting on this (non event loop) thread; a connection-level failure
    /// marks the transaction broken.
    @discardableResult
    private func wait<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        do {
            return try future.wait()
        } catch {
            let classified = PostgresErrors.classify(error)
            if classified.kind == .unavailable || connection.isClosed { broken = true }
            throw classified
        }
    }
}
