import Hummingbird
import Logging
import ServiceLifecycle

/// Runs `attach serve`: the application inside a service group that shuts down gracefully
/// on SIGINT and SIGTERM.
///
/// With systemd (`Type=notify`) it reports `READY=1` once it listens and `STOPPING=1` on a
/// signal. On a signal `/health/ready` turns 503 at once; after ``ServerConfiguration/drainDelay``
/// the server stops accepting connections, lets requests in flight finish
/// (an upload under way completes and is stored), then returns. A second signal, or the
/// process dying, abandons uploads: their temporary files are removed, or left locked for `gc`.
public enum AttachmentServer {
    /// Builds the application from `configuration` and serves until SIGINT or SIGTERM.
    /// - Throws: ``ServerConfiguration/Problem`` before binding, store errors when the store
    ///   cannot be opened, and bind errors (address in use).
    public static func run(_ configuration: ServerConfiguration) async throws {
        var configuration = configuration
        let (announce, host) = (configuration.onServerRunning, configuration.host)
        configuration.onServerRunning = { port in
            await announce?(port)
            SystemdNotifier.notify("READY=1\nSTATUS=serving on \(host):\(port)")
        }
        let readiness = ServerReadiness()
        let application = try await buildApplication(configuration, readiness: readiness)
        // Stopped in reverse order: the drain notice first (readiness turns 503, then the
        // configured delay), then the application closes its socket and finishes its requests.
        let group = ServiceGroup(configuration: .init(
            services: [application, DrainNoticeService(readiness: readiness, delay: configuration.drainDelay, logger: configuration.logger)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: configuration.logger
        ))
        try await group.run()
    }
}
