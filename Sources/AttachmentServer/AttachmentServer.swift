import Hummingbird
import Logging
import ServiceLifecycle

/// Runs `attach serve`: the application inside a service group that shuts down gracefully
/// on SIGINT and SIGTERM.
///
/// On a signal the server stops accepting connections, lets requests in flight finish
/// (an upload under way completes and is stored), then returns. A second signal, or the
/// process dying, abandons uploads: their temporary files are removed, or left locked for `gc`.
public enum AttachmentServer {
    /// Builds the application from `configuration` and serves until SIGINT or SIGTERM.
    /// - Throws: ``ServerConfiguration/Problem`` before binding, store errors when the store
    ///   cannot be opened, and bind errors (address in use).
    public static func run(_ configuration: ServerConfiguration) async throws {
        let application = try await buildApplication(configuration)
        let group = ServiceGroup(configuration: .init(
            services: [application],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: configuration.logger
        ))
        try await group.run()
    }
}
