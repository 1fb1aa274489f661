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
///   and a lease would wait for it; here, every ``leaseTimeout`` without a connection, one
///   direct connection attempt (a probe) checks that PostgreSQL answers, and if it does not
///   the lease fails `.unavailable` with the probe's reason ("connection refused",
///   "password authentication failed"), so a request answers 503 instead of hanging. While
///   PostgreSQL answers, a lease waits up to ``longestWait``. At most `capacity` leases are
///   outstanding (one per transaction thread), so a lease never waits behind another
///   transaction, only for a connection to be made.
///
/// ``close()`` stops the client's run task, which closes every connection.
final class CatalogConnections: Sendable {
    /// How long a transaction waits for a connection before checking that PostgreSQL answers.
    static let leaseTimeout: Duration = .seconds(5)
    /// The longest a transaction waits for a connection while PostgreSQL answers.
    static let longestWait: Duration = .seconds(60)

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
        let prefers = url.tls == .prefer
        var configuration = url.unixSocketPath.map { socket in
            PostgresClient.Configuration(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } ?? PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls.map { prefers ? .prefer($0) : .require($0) } ?? .disable)
        configuration.options.connectTimeout = url.connectTimeout
        // Only application_name, which PgBouncer passes on: the search path is set in each
        // transaction instead (PostgresCatalogDatabase), since a pooler refuses other startup
        // parameters and hands a session's settings to other clients.
        configuration.options.additionalStartupParameters = [("application_name", url.applicationName)]
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = capacity
        let client = PostgresClient(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                                    backgroundLogger: logger)
        self.client = client
        self.running = Task { await client.run() }

        var probe = try url.unixSocketPath.map { socket in
            PostgresConnection.Configuration(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } ?? PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: try tls.map { configuration in
                do {
                    let context = try NIOSSLContext(configuration: configuration)
                    return prefers ? .prefer(context) : .require(context)
                } catch {
                    throw SQLDatabaseError(.other, "cannot set up TLS for PostgreSQL: \(error)")
                }
            } ?? .disable)
        probe.options.connectTimeout = .nanoseconds(Int64(url.connectTimeout.components.seconds) * 1_000_000_000)
        probe.options.additionalStartupParameters = [("application_name", url.applicationName)]
        self.probeConfiguration = probe
        self.slots = AsyncGate(slots: capacity)
        self.location = url.location
        self.logger = logger
    }

    /// Runs `body` with a leased connection, returned to the pool afterwards (closed instead if
    /// `body` closed it). Every ``leaseTimeout`` without a connection, a direct probe checks
    /// that PostgreSQL still answers: if it does not, the lease fails at once with the probe's
    /// error; if it does (the pool is reconnecting, or busy on a loaded machine), the lease goes
    /// on waiting, up to ``longestWait`` in all.
    /// - Throws: what `body` throws; ``SQLDatabaseError`` `.unavailable` when PostgreSQL does not
    ///   answer, or no connection came within ``longestWait``.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await slots.withSlot {
            let leased = LeaseFlag()
            do {
                return try await withThrowingTaskGroup(of: LeaseEvent<T>.self) { group in
                    group.addTask {
                        .value(try await self.client.withConnection { connection in
                            leased.set()
                            return try await body(connection)
                        })
                    }
                    group.addTask { try await Task.sleep(for: Self.leaseTimeout); return .tick }
                    var waited = Duration.zero
                    while let event = try await group.next() {
                        switch event {
                        case .value(let value):
                            group.cancelAll()
                            return value
                        case .tick:
                            if leased.isSet { continue }
                            waited += Self.leaseTimeout
                            if let error = await probeFailure() { throw error }
                            guard waited < Self.longestWait else {
                                throw SQLDatabaseError(.unavailable, "PostgreSQL at \(location) answers, but gave this process no connection within \(Self.longestWait); try again")
                            }
                            group.addTask { try await Task.sleep(for: Self.leaseTimeout); return .tick }
                        }
                    }
                    throw CancellationError()
                }
            } catch {
                if leased.isSet || error is SQLDatabaseError || error is CancellationError { throw error }
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

    /// The error of one direct connection attempt, `nil` when it connects.
    private func probeFailure() async -> SQLDatabaseError? {
        do {
            try await check()
            return nil
        } catch let error as SQLDatabaseError {
            return error
        } catch {
            return PostgresErrors.classify(error)
        }
    }

    /// The TLS settings for `mode`, `nil` for none. `prefer` and `require` check no certificate
    /// (as libpq); `verify-ca` checks the chain, `verify-full` the chain and the host name.
    /// - Throws: ``SQLDatabaseError`` when the root certificate file cannot be read.
    static func tlsConfiguration(_ mode: CatalogURL.TLSMode) throws -> TLSConfiguration? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return nil
        case .prefer, .require:
            tls.certificateVerification = .none
        case .verifyCA(let file), .verifyFull(let file):
            tls.certificateVerification = mode == .verifyCA(rootCertificate: file) ? .noHostnameVerification : .fullVerification
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

    /// What the lease's task group hears: the body's value, or that another ``leaseTimeout`` passed.
    private enum LeaseEvent<T: Sendable>: Sendable {
        case value(T)
        case tick
    }

    /// Set once the pool has handed a connection over (shared by the lease and its timer).
    private final class LeaseFlag: Sendable {
        private let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
    }
}
