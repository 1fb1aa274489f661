import AsyncHTTPClient
import NIOSSL
import ServiceLifecycle

/// The HTTP client that talks to peers: it trusts the system's roots, or, given a certificate
/// file (`--peer-ca FILE`, a private CA for self-hosted peers over `https://`), only the
/// certificates in it. A connection that cannot be made (refused, or a certificate not
/// trusted) fails at once instead of being retried until the request's deadline: sync has its
/// own back-off. The one trusting the system's roots is shared by the whole process and never
/// shut down (like AsyncHTTPClient's own shared client); one made for a certificate file must
/// be shut down when no longer used (``shutdown()``, or ``service``).
public final class PeerHTTPClient: Sendable {
    /// The client to hand to ``SyncRound``, ``BlobFetcher`` and ``PeerSyncService``.
    public let http: HTTPClient
    /// Whether ``shutdown()`` shuts ``http`` down (false for the process-wide one).
    private let owned: Bool

    /// The process-wide client trusting the system's roots. A static constant lives as long as
    /// the process, so its `HTTPClient` is never deinitialised unshut.
    private static let systemTrust = PeerHTTPClient(http: HTTPClient(eventLoopGroupProvider: .singleton,
                                                                     configuration: configuration(TLSConfiguration.makeClientConfiguration())),
                                                    owned: false)

    /// The process-wide client's `HTTPClient`: the default of ``SyncRound``, ``BlobFetcher`` and
    /// ``PeerSyncService``. Like every client made here it follows no redirect, so a peer's
    /// token is never carried to another origin (AsyncHTTPClient's own shared client would).
    public static var system: HTTPClient { systemTrust.http }

    private init(http: HTTPClient, owned: Bool) {
        self.http = http
        self.owned = owned
    }

    private static func configuration(_ tls: TLSConfiguration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        // A redirect would resend the Authorization header, possibly to another origin.
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// A client trusting the certificates in `certificateAuthorityFile` (PEM), or the
    /// process-wide one trusting the system's roots when `nil`.
    /// - Throws: ``SyncError/badResponse(peer:reason:)`` naming the file when it cannot be read.
    public static func trusting(certificateAuthorityFile: String?) throws -> PeerHTTPClient {
        guard let file = certificateAuthorityFile else { return systemTrust }
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
        } catch {
            throw SyncError.badResponse(peer: file, reason: "the peer CA file cannot be read as PEM certificates (\(error))")
        }
        return PeerHTTPClient(http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(tls)), owned: true)
    }

    /// Shuts a client made for a certificate file down (the process-wide one stays). Call once, when done.
    public func shutdown() async {
        guard owned else { return }
        do {
            try await http.shutdown()
        } catch {
            // Only a second shutdown fails; nothing is left open either way.
        }
    }

    /// A service that keeps the client until graceful shutdown, then shuts it down; list it
    /// before the services that use the client, so that it stops after them.
    public var service: some Service { ShutdownService(client: self) }

    private struct ShutdownService: Service {
        let client: PeerHTTPClient

        func run() async throws {
            try? await gracefulShutdown()
            await client.shutdown()
        }
    }
}
