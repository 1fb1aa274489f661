import AsyncCoordination
import CatalogSQL
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The connections of one catalog: postgres-nio's `PostgresClient` pool, with the two things a
/// catalog needs on top of it.
///
/// - **A bounded wait.** While PostgreSQL is down the client keeps retrying in the background
///   and a lease would wait for it; here a lease that brings no connection within
///   ``leaseTimeout`` fails `.unavailable`, so a request answers 503 instead of hanging. At most
///   `capacity` leases are outstanding (one per transaction thread), so a lease never waits
///   behind another transaction, only for a connection to be made.
/// - **Precise errors.** The pool does not say why it cannot connect; when a lease times out,
///   one direct connection attempt (a probe) finds out, so the error says "connection refused"
///   or "password authentication failed" rather than only "timed out".
///
/// ``close()`` stops the client's run task, which closes every connection.
final class CatalogConnections: Sendable {
    /// How long a transaction waits for a connection before failing `.unavailable`.
    static let leaseTimeout: Duration = .seconds(5)

    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let probeConfiguration: PostgresConnection.Configuration
    private let slots: AsyncGate
    private let location: String
    private let logger: Logger

    /// A pool of at most `capacity` connections to the database `url` names.
    /// - Throws: ``SQLDatabaseError`` when the TLS settings cannot be loaded.
    init(url: CatalogURL, capacity: Int, logger: Logger) throws {
        let tls = try Self.tlsConfiguration(url.tls)
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls.map { .require($0) } ?? .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = [("search_path", url.schema)]
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = capacity
        let client = PostgresClient(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                                    backgroundLogger: logger)
        self.client = client
        self.running = Task { await client.run() }

        var probe = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: try tls.map { configuration in
                do {
                    return .require(try NIOSSLContext(configuration: configuration))
                } catch {
                    throw SQLDatabaseError(.other, "cannot set up TLS for PostgreSQL: \(error)")
                }
            } ?? .disable)
        probe.options.connectTimeout = .seconds(5)
        probe.options.additionalStartupParameters = [("search_path", url.schema)]
        self.probeConfiguration = probe
        self.slots = AsyncGate(slots: capacity)
        self.location = "\(url.host):\(url.port)"
        self.logger = logger
    }

    /// Runs `body` with a leased connection, returned to the pool afterwards (closed instead if
    /// `body` closed it).
    /// - Throws: what `body` throws; ``SQLDatabaseError`` `.unavailable` when no connection came
    ///   within ``leaseTimeout`` or the pool is closed.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await slots.withSlot {
            let leased = LeaseFlag()
            do {
                return try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        try await self.client.withConnection { connection in
                            leased.set()
                            return try await body(connection)
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: Self.leaseTimeout)
                        if leased.isSet { return nil }
                        throw LeaseTimedOut()
                    }
                    while let next = try await group.next() {
                        if let value = next {
                            group.cancelAll()
                            return value
                        }
                    }
                    throw LeaseTimedOut()
                }
            } catch is LeaseTimedOut {
                throw await unavailable()
            } catch {
                if leased.isSet { throw error }
                if error is CancellationError { throw error }
                throw SQLDatabaseError(.unavailable, "PostgreSQL at \(location) gave no connection: \(PostgresErrors.classify(error).message)")
            }
        }
    }

    /// Makes one direct connection and closes it, so that a catalog that cannot be reached, or
    /// refuses the login, says why at once.
    /// - Throws: ``SQLDatabaseError``: `.unavailable` when PostgreSQL cannot be reached, `.other`
    ///   for a refused login.
    func check() async throws {
        do {
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: probeConfiguration, id: 0, logger: logger)
            try? await connection.close()
        } catch {
            let cause = PostgresErrors.classify(error)
            throw SQLDatabaseError(cause.kind, "PostgreSQL at \(location): \(cause.message)")
        }
    }

    /// Stops the pool: leases after this fail `.unavailable`; connections are closed.
    func close() async {
        running.cancel()
        await running.value
    }

    /// Why no connection came: the error of one direct attempt, or, if that attempt connects,
    /// that the pool is still reconnecting.
    private func unavailable() async -> SQLDatabaseError {
        do {
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: probeConfiguration, id: 0, logger: logger)
            try? await connection.close()
            return SQLDatabaseError(.unavailable, "PostgreSQL at \(location) is reachable again but the pool is still reconnecting; try again in a moment")
        } catch {
            let cause = PostgresErrors.classify(error)
            return SQLDatabaseError(cause.kind, "PostgreSQL at \(location) gave no connection within \(Self.leaseTimeout): \(cause.message)")
        }
    }

    /// The TLS settings for `mode`, `nil` for none.
    /// - Throws: ``SQLDatabaseError`` when the root certificate file cannot be read.
    static func tlsConfiguration(_ mode: CatalogURL.TLSMode) throws -> TLSConfiguration? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return nil
        case .require:
            tls.certificateVerification = .none
        case .verifyFull(let file):
            tls.certificateVerification = .fullVerification
            if let file {
                do {
                    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
                } catch {
                    throw SQLDatabaseError(.other, "cannot read the sslrootcert file \(file): \(error)")
                }
            }
        }
        return tls
    }

    private struct LeaseTimedOut: Error {}

    /// Set once the pool has handed a connection over (shared by the lease and its timer).
    private final class LeaseFlag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
    }
}
