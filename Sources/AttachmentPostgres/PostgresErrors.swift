import CatalogSQL
import NIOCore
import NIOPosix
import PostgresNIO

/// Turns postgres-nio's and NIO's errors into ``SQLDatabaseError``s.
enum PostgresErrors {
    /// - SQLSTATE class 23 (integrity constraint violation) → `.constraint`;
    /// - 53100 (disk full) → `.full`;
    /// - class 08 (connection exception), 57P01–57P03 (shutdown, crash, starting up), 53300
    ///   (too many connections), and every error at the connection level (refused, closed,
    ///   reset, timed out) → `.unavailable`;
    /// - 25P02 and the rest → `.other`, with PostgreSQL's message, detail and SQLSTATE.
    static func classify(_ error: any Error) -> SQLDatabaseError {
        if let error = error as? SQLDatabaseError { return error }
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let info = error.serverInfo
                let state = info?[.sqlState] ?? ""
                var message = info?[.message] ?? "PostgreSQL error"
                if let detail = info?[.detail] { message += " (\(detail))" }
                message += " [SQLSTATE \(state)]"
                if state.hasPrefix("23") { return SQLDatabaseError(.constraint, message) }
                if state == "53100" { return SQLDatabaseError(.full, message) }
                if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) {
                    return SQLDatabaseError(.unavailable, message)
                }
                return SQLDatabaseError(.other, message)
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                let underlying = error.underlying.map { ": \($0)" } ?? ""
                return SQLDatabaseError(.unavailable, "PostgreSQL unavailable (\(error.code))\(underlying)")
            default:
                let underlying = error.underlying.map { ": \($0)" } ?? ""
                return SQLDatabaseError(.other, "PostgreSQL client error (\(error.code))\(underlying)")
            }
        }
        switch error {
        case is ChannelError, is IOError, is NIOConnectionError:
            return SQLDatabaseError(.unavailable, "PostgreSQL unavailable: \(error)")
        case is NIOThreadPoolError.ThreadPoolInactive:
            return SQLDatabaseError(.unavailable, "the PostgreSQL catalog is closed")
        default:
            return SQLDatabaseError(.other, "\(error)")
        }
    }
}
