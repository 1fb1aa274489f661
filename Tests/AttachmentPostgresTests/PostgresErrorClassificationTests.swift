@testable import AttachmentPostgres
import CatalogSQL
import NIOCore
import NIOPosix
@testable import PostgresNIO
import Testing

/// `PostgresErrors.classify`: how postgres-nio's and NIO's errors become `SQLDatabaseError`s of
/// the kind the store acts on — by SQLSTATE for errors PostgreSQL sent (constraint, disk full,
/// unavailable, other), by code for client-side errors, by type for NIO's — and that the
/// message carries PostgreSQL's text, detail and SQLSTATE.
@Suite("PostgreSQL error classification")
struct PostgresErrorClassificationTests {
    /// An error as PostgreSQL would send it.
    static func serverError(_ state: String, message: String = "it went wrong", detail: String? = nil) -> PSQLError {
        var fields: [PostgresBackendMessage.Field: String] = [.sqlState: state, .message: message, .severity: "ERROR"]
        if let detail { fields[.detail] = detail }
        return PSQLError.server(PostgresBackendMessage.ErrorResponse(fields: fields))
    }

    struct Unrelated: Error, CustomStringConvertible {
        var description: String { "something unrelated" }
    }

    @Test("an SQLDatabaseError passes through as it is")
    func passThrough() {
        let error = SQLDatabaseError(.newerSchema, "migrated by a newer release")
        #expect(PostgresErrors.classify(error) == error)
    }

    @Test("integrity constraint violations (SQLSTATE class 23) are .constraint", arguments: [
        "23000", "23001", "23502", "23503", "23505", "23514", "23P01",
    ])
    func constraintViolations(state: String) {
        #expect(PostgresErrors.classify(Self.serverError(state)).kind == .constraint)
    }

    @Test("disk full (53100) is .full; other class 53 resources are not", arguments: [
        ("53100", SQLDatabaseError.Kind.full),
        ("53200", .other),
        ("53400", .other),
    ])
    func resources(state: String, kind: SQLDatabaseError.Kind) {
        #expect(PostgresErrors.classify(Self.serverError(state)).kind == kind)
    }

    @Test("connection exceptions, shutdowns, crash recovery, start-up and too many connections are .unavailable", arguments: [
        "08000", "08003", "08006", "08001", "08004", "08P01", "57P01", "57P02", "57P03", "53300",
    ])
    func unavailableStates(state: String) {
        #expect(PostgresErrors.classify(Self.serverError(state)).kind == .unavailable)
    }

    @Test("other SQLSTATEs — a failed transaction, syntax, a missing table, a cancelled query, a lock timeout — are .other", arguments: [
        "25P02", "42601", "42P01", "57014", "55P03", "40001", "40P01", "22012", "XX000", "57000", "",
    ])
    func otherStates(state: String) {
        #expect(PostgresErrors.classify(Self.serverError(state)).kind == .other)
    }

    @Test("the message is PostgreSQL's text, then its detail in parentheses, then the SQLSTATE")
    func messageWithDetail() {
        let classified = PostgresErrors.classify(Self.serverError(
            "23505", message: "duplicate key value violates unique constraint \"note_pkey\"", detail: "Key (id)=(n1) already exists."))
        #expect(classified == SQLDatabaseError(.constraint,
            "duplicate key value violates unique constraint \"note_pkey\" (Key (id)=(n1) already exists.) [SQLSTATE 23505]"))
    }

    @Test("without a detail the message is PostgreSQL's text and the SQLSTATE")
    func messageWithoutDetail() {
        let classified = PostgresErrors.classify(Self.serverError("42P01", message: "relation \"nope\" does not exist"))
        #expect(classified == SQLDatabaseError(.other, "relation \"nope\" does not exist [SQLSTATE 42P01]"))
    }

    @Test("a server error without a message still names its SQLSTATE")
    func serverErrorWithoutMessage() {
        let error = PSQLError.server(PostgresBackendMessage.ErrorResponse(fields: [.sqlState: "53100"]))
        #expect(PostgresErrors.classify(error) == SQLDatabaseError(.full, "PostgreSQL error [SQLSTATE 53100]"))
    }

    @Test("connection-level client errors are .unavailable, naming the code and the underlying error")
    func connectionLevelErrors() {
        let refused = PostgresErrors.classify(PSQLError.connectionError(underlying: Unrelated()))
        #expect(refused == SQLDatabaseError(.unavailable, "PostgreSQL unavailable (connectionError): something unrelated"))
        #expect(PostgresErrors.classify(PSQLError.serverClosedConnection(underlying: nil))
            == SQLDatabaseError(.unavailable, "PostgreSQL unavailable (serverClosedConnection)"))
        #expect(PostgresErrors.classify(PSQLError.clientClosedConnection(underlying: nil)).kind == .unavailable)
        #expect(PostgresErrors.classify(PSQLError.uncleanShutdown).kind == .unavailable)
        #expect(PostgresErrors.classify(PSQLError.poolClosed).kind == .unavailable)
    }

    @Test("other client errors (a cancelled query, a login the server refuses to negotiate) are .other, naming the code")
    func otherClientErrors() {
        #expect(PostgresErrors.classify(PSQLError.queryCancelled)
            == SQLDatabaseError(.other, "PostgreSQL client error (queryCancelled)"))
        #expect(PostgresErrors.classify(PSQLError.sslUnsupported).kind == .other)
        #expect(PostgresErrors.classify(PSQLError.authMechanismRequiresPassword).kind == .other)
        #expect(PostgresErrors.classify(PSQLError.sasl(underlying: Unrelated()))
            == SQLDatabaseError(.other, "PostgreSQL client error (saslError): something unrelated"))
    }

    @Test("NIO's channel, I/O and connection errors are .unavailable")
    func nioErrors() {
        #expect(PostgresErrors.classify(ChannelError.ioOnClosedChannel).kind == .unavailable)
        #expect(PostgresErrors.classify(ChannelError.connectTimeout(.seconds(5))).kind == .unavailable)
        #expect(PostgresErrors.classify(IOError(errnoCode: ECONNREFUSED, reason: "connect")).kind == .unavailable)
        let classified = PostgresErrors.classify(ChannelError.eof)
        #expect(classified.message.hasPrefix("PostgreSQL unavailable: "))
    }

    @Test("a thread pool that has been shut down means the catalog is closed")
    func closedThreadPool() {
        #expect(PostgresErrors.classify(NIOThreadPoolError.ThreadPoolInactive())
            == SQLDatabaseError(.unavailable, "the PostgreSQL catalog is closed"))
    }

    @Test("any other error is .other with its own description")
    func unrelatedErrors() {
        #expect(PostgresErrors.classify(Unrelated()) == SQLDatabaseError(.other, "something unrelated"))
    }
}
