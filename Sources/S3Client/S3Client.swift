import AsyncCoordination
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A small client for one bucket of an S3-compatible server: objects in and out, streamed,
/// signed with SigV4, retried when a retry can help.
///
/// - Uploads of files stream from disk with bounded memory and switch to multipart uploads
///   above ``S3Configuration/multipartThreshold``; an upload that fails is aborted.
/// - Downloads are async sequences of byte chunks; nothing buffers a whole object.
/// - Idempotent requests are retried per ``S3Configuration/retry``; 4xx answers never are.
/// - File I/O runs on NIO's blocking thread pool, never on Swift's cooperative threads.
///
/// The client holds no mutable state: share one instance between tasks.
///
/// ```swift
/// let s3 = S3Client(configuration: try .fromEnvironment())
/// let upload = try await s3.putObject(key: "photos/a.jpg", fileAt: "/tmp/a.jpg")
/// for try await chunk in try await s3.getObject(key: "photos/a.jpg").body { ... }
/// ```
public final class S3Client: Sendable {
    /// The endpoint, bucket, credentials and tuning this client uses.
    public let configuration: S3Configuration
    let http: HTTPClient
    let credentials: CredentialCache
    let logger: Logger
    /// The clock retries wait on (a test's hand-driven clock, or the system's).
    let clock: LoopClock
    let fileIO = NonBlockingFileIO(threadPool: .singleton)

    /// A client for `configuration` over `http` (default: ``defaultHTTPClient``, or — when the
    /// configuration trusts its own certificate authorities — a shared client trusting those),
    /// waiting between retries on `clock`.
    public init(configuration: S3Configuration, http: HTTPClient? = nil,
                logger: Logger = Logger(label: "s3-client"), clock: LoopClock = .continuous) {
        self.configuration = configuration
        self.clock = clock
        let http = http ?? configuration.trustedCertificates.map(Self.httpClient(trusting:)) ?? Self.defaultHTTPClient
        self.http = http
        self.logger = logger
        self.credentials = CredentialCache(source: configuration.credentials, http: CredentialHTTP(client: http))
    }

    /// The HTTP client S3 clients share unless given another: process-wide, never shut down
    /// (like `HTTPClient.shared`), on NIO's singleton event loop group.
    ///
    /// Unlike `HTTPClient.shared` it does not retry a refused connection internally until the
    /// request's deadline: a connection error fails the attempt at once (connect timeout 10 s),
    /// and ``S3RetryPolicy`` decides. It follows no redirects (a signed request cannot be
    /// replayed elsewhere).
    public static let defaultHTTPClient = makeHTTPClient(tls: nil)

    /// The HTTP clients for configurations with their own certificate authorities, one per
    /// bundle file, made on first use and kept like ``defaultHTTPClient``.
    private static let clientsByBundle = Mutex<[String: HTTPClient]>([:])

    /// The shared HTTP client that trusts `certificates` (and not the system's roots).
    static func httpClient(trusting certificates: S3TrustedCertificates) -> HTTPClient {
        clientsByBundle.withLock { clients in
            if let client = clients[certificates.path] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(certificates.certificates)
            let client = makeHTTPClient(tls: tls)
            clients[certificates.path] = client
            return client
        }
    }

    /// An HTTP client with the settings above, and `tls` when given.
    private static func makeHTTPClient(tls: TLSConfiguration?) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        if let tls { configuration.tlsConfiguration = tls }
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    // MARK: - Sending

    /// Sends `request`, retrying it per the retry policy, and returns the first successful
    /// (2xx) response, whose body the caller must consume. Credentials the server calls
    /// expired are fetched again and the request sent once more, whatever its method (a 403
    /// changed nothing).
    /// - Throws: ``S3ClientError`` for error statuses, unreachable endpoints and missing
    ///   credentials, or `CancellationError`.
    func send(_ request: S3Request) async throws -> HTTPClientResponse {
        let policy = configuration.retry
        var attempt = 1
        var renewedCredentials = false
        while true {
            try Task.checkCancellation()
            let failure: S3ClientError
            let retryable: Bool
            let signing = try await credentials.credentials()
            do {
                let response = try await http.execute(makeHTTPRequest(request, signedWith: signing), timeout: timeout, logger: logger)
                let status = Int(response.status.code)
                if (200..<300).contains(status) { return response }
                let body = try? await response.body.collect(upTo: 1 << 20)
                let details = S3ErrorDetails(status: status, body: body)
                if status == 400 || status == 403, S3RetryPolicy.expiredCredentialCodes.contains(details.code ?? ""), !renewedCredentials {
                    await credentials.invalidate(signing)
                    renewedCredentials = true
                    continue
                }
                failure = details.error(bucket: configuration.bucket, key: request.key)
                retryable = S3RetryPolicy.isRetryable(status: status, s3Code: details.code)
            } catch let error as S3ClientError {
                throw error
            } catch {
                if Task.isCancelled { throw CancellationError() }
                failure = .unreachable(endpoint: configuration.endpoint.absoluteString, attempts: attempt,
                                       underlying: String(describing: error))
                retryable = true
            }
            guard retryable, request.idempotent, attempt < policy.maxAttempts else { throw failure }
            let delay = policy.delay(beforeRetry: attempt)
            logger.debug("retrying S3 request", metadata: [
                "method": "\(request.method)", "key": "\(request.key ?? "")", "attempt": "\(attempt)",
                "delay": "\(delay)", "error": "\(failure)",
            ])
            try await clock.sleep(for: delay)
            attempt += 1
        }
    }

    /// `request` as an HTTP request signed now with `credentials`.
    func makeHTTPRequest(_ request: S3Request, signedWith credentials: S3Credentials) -> HTTPClientRequest {
        let path = path(for: request.key)
        var url = "\(configuration.endpoint.scheme?.lowercased() ?? "http")://\(hostHeader)\(path)"
        let query = S3URIEncoding.canonicalQuery(request.query)
        if !query.isEmpty { url += "?" + query }

        var httpRequest = HTTPClientRequest(url: url)
        httpRequest.method = request.method
        var headers = request.headers
        headers.append(("Host", hostHeader))
        let payloadHash: String
        switch request.payload {
        case .empty:
            payloadHash = SigV4Signer.emptyPayloadHash
        case .bytes(let buffer):
            payloadHash = buffer.withUnsafeReadableBytes { SHA256.hash(data: $0) }.hexString
            httpRequest.body = .bytes(buffer)
        case .stream(let makeBody):
            payloadHash = SigV4Signer.unsignedPayload
            httpRequest.body = makeBody()
        }
        let signer = SigV4Signer(credentials: credentials, region: configuration.region)
        let signed = signer.sign(
            SigV4Signer.Request(method: request.method.rawValue, path: path, query: request.query,
                                headers: headers, payloadHash: payloadHash),
            at: Date()
        )
        for (name, value) in headers + signed { httpRequest.headers.add(name: name, value: value) }
        return httpRequest
    }

    /// The encoded path of `key` in the bucket behind the endpoint's own path: `/BUCKET/KEY`
    /// path-style, `/KEY` virtual-hosted (the bucket itself: `/BUCKET`, or `/`).
    func path(for key: String?) -> String {
        var path = endpointPath
        if configuration.addressing == .path { path += "/" + S3URIEncoding.encode(configuration.bucket, keepSlash: false) }
        if let key {
            path += "/" + S3URIEncoding.encode(key, keepSlash: true)
        } else if path.isEmpty {
            path = "/"
        }
        return path
    }

    private var endpointPath: String { configuration.endpoint.path(percentEncoded: true).trimmingSuffix("/") }

    /// The `Host` header and the URL's authority: the endpoint's host (the bucket's name in
    /// front of it when virtual-hosted), with its port unless it is the scheme's default.
    var hostHeader: String {
        let endpointHost = configuration.endpoint.host() ?? ""
        let host = configuration.addressing == .virtualHosted ? "\(configuration.bucket).\(endpointHost)" : endpointHost
        guard let port = configuration.endpoint.port else { return host }
        let scheme = configuration.endpoint.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return host }
        return "\(host):\(port)"
    }

    private var timeout: TimeAmount { .nanoseconds(configuration.requestTimeout.nanoseconds) }
}

extension String {
    /// The string without one trailing `suffix`, if it ends with it.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
