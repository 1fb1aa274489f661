import CatalogSQL
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Idle connections to one catalog, opened on demand by the transaction threads. Each
/// transaction thread holds at most one connection at a time, so there are never more open
/// connections than threads. Its methods block (they wait on futures) and are called only on
/// those threads, never on an event loop.
final class ConnectionPool: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var closed = false
        var nextID = 1
    }

    private let state = Mutex(State())
    private let configuration: PostgresConnection.Configuration
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let capacity: Int

    init(configuration: PostgresConnection.Configuration, eventLoopGroup: any EventLoopGroup, capacity: Int, logger: Logger) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.capacity = capacity
        self.logger = logger
    }

    /// An idle connection that is still open (`reused`), else a new one.
    /// - Throws: ``SQLDatabaseError``: `.unavailable` when PostgreSQL cannot be reached or the
    ///   pool is closed.
    func acquire() throws -> (connection: PostgresConnection, reused: Bool) {
        enum Next { case closed, idle(PostgresConnection), open(id: Int) }
        while true {
            let next: Next = state.withLock { state in
                if state.closed { return .closed }
                if let connection = state.idle.popLast() { return .idle(connection) }
                defer { state.nextID += 1 }
                return .open(id: state.nextID)
            }
            switch next {
            case .closed:
                throw SQLDatabaseError(.unavailable, "the PostgreSQL catalog is closed")
            case .idle(let connection):
                if !connection.isClosed { return (connection, true) }
            case .open(let id):
                do {
                    let connection = try PostgresConnection.connect(
                        on: eventLoopGroup.next(), configuration: configuration, id: id, logger: logger
                    ).wait()
                    return (connection, false)
                } catch {
                    throw PostgresErrors.classify(error)
                }
            }
        }
    }

    /// Gives `connection` back: kept when `healthy`, still open, and the pool is open and not
    /// full; closed otherwise.
    func release(_ connection: PostgresConnection, healthy: Bool) {
        let kept = state.withLock { state in
            guard healthy, !state.closed, !connection.isClosed, state.idle.count < capacity else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
    }

    /// A pool dropped without ``close()`` still closes its idle connections (postgres-nio
    /// requires a connection to be closed before it is released); each close keeps its
    /// connection alive until it completes.
    deinit {
        for connection in state.withLock({ $0.idle }) {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Closes every idle connection; connections in use are closed when released.
    func close() async {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { try? await connection.close() }
    }
}
