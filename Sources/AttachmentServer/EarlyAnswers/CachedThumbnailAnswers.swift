import AttachmentStore
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

/// Answers a request for a hash-addressed thumbnail that ``ThumbnailResponseCache`` holds,
/// from the connection's event loop, before Hummingbird's router and middleware see it.
///
/// It answers only when the routed answer would be the same bytes and headers, and hands
/// every other request on (it returns `nil`), so it adds no way in that the router does not
/// have. A request it answers:
/// - is a `GET` of exactly `/api/attachments/{id}/thumbnail` with a query of `v=` and
///   optionally `size=` (each once, letters and digits only), `size` one of the configured;
/// - carries no body, no `Connection`, `Expect` or `Cookie` header (sessions, connection
///   handling and bodies are the router's);
/// - is allowed by the server's ``AccessPolicy``, the decision the router's middleware asks:
///   one `Host`, which the server answers to, and when the server requires a token, a bearer
///   token whose scope covers the route's (a session or no credentials go to the router, which
///   decides how to refuse or to log in);
/// - comes straight from its client, not through a trusted proxy (whose forwarded address the
///   log line would name);
/// - finds a live entry under its attachment, hash and size.
/// The answer is ``ThumbnailRoute/answer(_:mediaType:hash:size:immutable:ifNoneMatch:metrics:result:)``'s
/// with the security headers, `Date` and `Server` added as the router's chain adds them; the
/// request is counted and logged by ``RequestLogMiddleware/record(method:path:route:status:duration:client:logger:metrics:)``
/// under its route, and counted in `attach_thumbnail_early_answers_total`.
struct CachedThumbnailAnswers: Sendable {
    /// An answer made here: its head, and its body unless it is a 304.
    struct Answer {
        var head: HTTPResponse
        var body: ByteBuffer?
        /// Whether the request's credentials were checked (the server requires a token), so
        /// its connection counts as authenticated (see ``ConnectionTable``).
        var authenticated = false
    }

    /// The route's name in metrics and logs, as the router names it.
    static let route = "/api/attachments/{id}/thumbnail"
    /// The `Server` field of every answer (the application's configured server name).
    static let serverName = "attach"

    let cache: ThumbnailResponseCache
    let sizes: [Int]
    let policy: AccessPolicy
    let trustedProxies: TrustedProxies
    let tls: Bool
    let metrics: ServerMetrics
    let logger: Logger

    /// The answer to `request` from a client at `peer` (its IP address), with `date` as its
    /// `Date` (asked for only when there is an answer); `nil` when the request is not one this
    /// answers (the router then does).
    func answer(to request: HTTPRequest, from peer: String?, date: @autoclosure () -> String) -> Answer? {
        guard request.method == .get, let path = request.path, let target = ThumbnailTarget(path) else { return nil }
        let clock = ContinuousClock()
        let start = clock.now
        let fields = request.headerFields
        guard fields[.cookie] == nil, fields[.connection] == nil, fields[.expect] == nil,
              fields[.contentLength] == nil, fields[.transferEncoding] == nil else { return nil }
        guard policy.host(authority: request.authority, fields: fields) == .allowed,
              case .allowed(let authenticated) = policy.access(fields.bearer.flatMap { policy.scope(ofBearer: $0.token) }, required: .full)
        else { return nil }
        if let peer, trustedProxies.contains(peer) { return nil }
        let size: Int
        do { size = try ThumbnailRoute.size(target.size, allowed: sizes) } catch { return nil }
        guard let id = Identifier.lowercasedUUID(target.id),
              let entry = cache.entry(for: .init(attachment: AttachmentID(rawValue: id), hash: target.version, size: size))
        else { return nil }

        let response = ThumbnailRoute.answer(entry.body, mediaType: entry.mediaType, hash: target.version, size: size, immutable: true,
                                             ifNoneMatch: fields[.ifNoneMatch], metrics: metrics, result: "cache_hit")
        var headers = response.headers
        SecurityHeadersMiddleware.apply(to: &headers)
        headers[.date] = date()
        headers[.server] = Self.serverName
        metrics.count("attach_thumbnail_early_answers_total", by: 1)
        var logger = logger
        // The log line carries a request id, as Hummingbird's lines do.
        if logger.logLevel <= .info { logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID()) }
        RequestLogMiddleware.record(method: .get, path: target.path, route: Self.route, status: response.status.code,
                                    duration: clock.now - start, client: .direct(address: peer, tls: tls), logger: logger,
                                    metrics: metrics)
        return Answer(head: HTTPResponse(status: response.status, headerFields: headers),
                      body: response.status == .ok ? entry.body : nil, authenticated: authenticated)
    }
}

extension CachedThumbnailAnswers {
    /// Answers from `dependencies`' response cache, under the server's own host, token, proxy
    /// and size settings.
    init(_ dependencies: ServerDependencies) {
        self.init(
            cache: dependencies.thumbnailResponses, sizes: dependencies.configuration.thumbnailSizes, policy: dependencies.accessPolicy,
            trustedProxies: dependencies.trustedProxies, tls: dependencies.configuration.tls != nil,
            metrics: dependencies.metrics, logger: dependencies.configuration.logger)
    }
}

/// The parts of a request target of exactly the form
/// `/api/attachments/{id}/thumbnail?v={hash}[&size={n}]` (the parameters in either order),
/// or `nil` for any other: a different path, other or repeated parameters, empty values, or
/// anything but ASCII letters and digits in a value (so no percent-decoding is needed).
/// Read byte by byte: this runs for every request a server gets.
struct ThumbnailTarget: Equatable {
    /// The path without the query, as the log line shows it.
    let path: String
    /// The attachment id as written (not yet checked).
    let id: String
    /// The `v` parameter: the content hash the URL names.
    let version: String
    /// The `size` parameter, when given.
    let size: String?

    private static let prefix = Array("/api/attachments/".utf8)
    private static let suffix = Array("/thumbnail?".utf8)

    init?(_ target: String) {
        var target = target
        guard let parts = target.withUTF8({ Self.parts(of: $0) }) else { return nil }
        self = parts
    }

    private init(path: String, id: String, version: String, size: String?) {
        (self.path, self.id, self.version, self.size) = (path, id, version, size)
    }

    private static func parts(of bytes: UnsafeBufferPointer<UInt8>) -> ThumbnailTarget? {
        let idStart = prefix.count, idEnd = prefix.count + 36, queryStart = idEnd + suffix.count
        guard bytes.count > queryStart, bytes[..<idStart].elementsEqual(prefix), bytes[idEnd..<queryStart].elementsEqual(suffix) else {
            return nil
        }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        var version: Range<Int>?
        var size: Range<Int>?
        var start = queryStart
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            // One parameter, bytes[start..<end]: `v=…` or `size=…`, each once, a non-empty value.
            var equals = start
            while equals < end && bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            guard equals < end - 1, bytes[(equals + 1)..<end].allSatisfy(\.isASCIILetterOrDigit) else { return nil }
            let name = bytes[start..<equals], value = (equals + 1)..<end
            if name.elementsEqual("v".utf8), version == nil {
                version = value
            } else if name.elementsEqual("size".utf8), size == nil {
                size = value
            } else {
                return nil
            }
            start = end + 1
        }
        guard let version else { return nil }
        return ThumbnailTarget(path: text(0..<(queryStart - 1)), id: text(idStart..<idEnd), version: text(version), size: size.map(text))
    }
}
