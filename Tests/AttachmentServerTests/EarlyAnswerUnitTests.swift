@testable import AttachmentServer
import AttachmentStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing

/// The rule that decides which requests are answered on the event loop, before the router:
/// only a plain, authorised `GET` of a cached hash-addressed thumbnail. Every other request,
/// however close, must be handed on (`nil`), so that the router's checks decide it.
@Suite("Early answers: which requests")
struct EarlyAnswerUnitTests {
    static let id = "4a7e4007-b798-44e1-82b8-d7537f417953"
    static let hash = "16cf903dbe5baf3379ad7b62351a79c8907e228206af0b6452874393bc1a26cf"
    static let path = "/api/attachments/\(id)/thumbnail"
    static let body = ByteBuffer(repeating: 7, count: 1_000)

    static func answers(
        tokens: AccessTokens = AccessTokens(full: nil, syncRead: nil), trusted: [String] = [], timeToLive: Duration = .seconds(30)
    ) throws -> CachedThumbnailAnswers {
        let cache = ThumbnailResponseCache(timeToLive: timeToLive)
        cache.insert(.init(body: body, mediaType: "image/jpeg", created: .now), for: .init(attachment: AttachmentID(rawValue: id), hash: hash, size: 200))
        return CachedThumbnailAnswers(
            cache: cache, sizes: [200, 400],
            policy: AccessPolicy(hosts: AllowedHosts(bindHost: "127.0.0.1", publicURL: nil, extra: ["photos.example"]), tokens: tokens),
            trustedProxies: try TrustedProxies(parsing: trusted), tls: false, metrics: ServerMetrics(),
            logger: Logger(label: "test"))
    }

    static func request(_ target: String, method: HTTPRequest.Method = .get, host: String? = "127.0.0.1:8080", _ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: host, path: target, headerFields: fields)
    }

    @Test("a plain GET of a cached thumbnail is answered, in any parameter order, the size defaulting to the smallest (and read as a number, as the router reads it)", arguments: [
        "?v=\(hash)", "?v=\(hash)&size=200", "?size=200&v=\(hash)", "?v=\(hash)&size=0200",
    ])
    func plainRequestIsAnswered(query: String) throws {
        let answer = try #require(try Self.answers().answer(to: Self.request(Self.path + query), from: "127.0.0.1", date: "D"))
        #expect(answer.head.status == .ok)
        #expect(answer.body == Self.body)
        #expect(answer.head.headerFields[.contentLength] == "1000")
        #expect(answer.head.headerFields[.contentType] == "image/jpeg")
        #expect(answer.head.headerFields[.eTag] == "\"\(Self.hash)-200\"")
        #expect(answer.head.headerFields[.contentSecurityPolicy] == SecurityHeadersMiddleware.contentSecurityPolicy)
        #expect(answer.head.headerFields[.xContentTypeOptions] == "nosniff")
        #expect(answer.head.headerFields[.date] == "D" && answer.head.headerFields[.server] == "attach")
    }

    @Test("an id in capitals names the same attachment, as the router reads it")
    func capitalIdIsTheSameAttachment() throws {
        let target = "/api/attachments/\(Self.id.uppercased())/thumbnail?v=\(Self.hash)"
        #expect(try Self.answers().answer(to: Self.request(target), from: nil, date: "D") != nil)
    }

    @Test("a request whose tag the client has is a 304 without a body")
    func matchingTagIsNotModified() throws {
        let request = Self.request(Self.path + "?v=\(Self.hash)", [.ifNoneMatch: "\"\(Self.hash)-200\""])
        let answer = try #require(try Self.answers().answer(to: request, from: nil, date: "D"))
        #expect(answer.head.status == .notModified)
        #expect(answer.body == nil && answer.head.headerFields[.contentType] == nil)
    }

    @Test("targets that are not exactly a cached hash-addressed thumbnail go to the router", arguments: [
        "", "?", "?v=", "?v=\(hash)&", "?&v=\(hash)", "?v=\(hash)&v=\(hash)", "?v=\(hash)&size=200&size=200", "?v=\(hash)&x=1",
        "?v=\(hash)%30", "?%76=\(hash)", "?v=\(hash)&size=+200", "?v=\(hash)&size=400", "?v=\(hash)&size=201",
        "?v=\(hash.uppercased())", "?v=\(hash)#x", "?V=\(hash)", "?size=200", "?v=\(hash)&size=200;",
    ])
    func otherQueriesGoToTheRouter(query: String) throws {
        #expect(try Self.answers().answer(to: Self.request(Self.path + query), from: nil, date: "D") == nil)
    }

    @Test("other paths go to the router", arguments: [
        "/api/attachments/\(id)/thumbnail/?v=\(hash)", "/api//attachments/\(id)/thumbnail?v=\(hash)",
        "/API/attachments/\(id)/thumbnail?v=\(hash)", "/api/attachments/\(id)/Thumbnail?v=\(hash)",
        "/api/attachments/\(id)x/thumbnail?v=\(hash)", "/api/attachments/\(id.dropLast())/thumbnail?v=\(hash)",
        "/api/attachments/\(id.replacingOccurrences(of: "-", with: "_"))/thumbnail?v=\(hash)",
        "/api/attachments/%34\(id.dropFirst())/thumbnail?v=\(hash)", "/api/attachments/\(id)/original?v=\(hash)",
        "api/attachments/\(id)/thumbnail?v=\(hash)", "/x/api/attachments/\(id)/thumbnail?v=\(hash)",
    ])
    func otherPathsGoToTheRouter(target: String) throws {
        #expect(try Self.answers().answer(to: Self.request(target), from: nil, date: "D") == nil)
    }

    @Test("other methods go to the router", arguments: [HTTPRequest.Method.head, .post, .put, .delete, .options])
    func otherMethodsGoToTheRouter(method: HTTPRequest.Method) throws {
        #expect(try Self.answers().answer(to: Self.request(Self.path + "?v=\(Self.hash)", method: method), from: nil, date: "D") == nil)
    }

    @Test("a foreign or missing Host goes to the router, which refuses it", arguments: [
        "evil.example", "evil.example:80", "127.0.0.1.evil.example", "", "photos.example.evil", "[::2]",
    ] as [String?] + [nil])
    func foreignHostGoesToTheRouter(host: String?) throws {
        #expect(try Self.answers().answer(to: Self.request(Self.path + "?v=\(Self.hash)", host: host), from: nil, date: "D") == nil)
        #expect(try Self.answers().answer(to: Self.request(Self.path + "?v=\(Self.hash)", host: "photos.example"), from: nil, date: "D") != nil)
    }

    @Test("a body, a cookie, or connection handling goes to the router", arguments: [
        [.contentLength: "0"], [.contentLength: "5"], [.transferEncoding: "chunked"], [.expect: "100-continue"],
        [.cookie: "attach_session=x"], [.connection: "close"], [.connection: "keep-alive"],
    ] as [HTTPFields])
    func requestsTheRouterMustHandle(fields: HTTPFields) throws {
        #expect(try Self.answers().answer(to: Self.request(Self.path + "?v=\(Self.hash)", fields), from: nil, date: "D") == nil)
    }

    @Test("with a token required, only the full token as a bearer is answered here", arguments: [
        (nil, false), ("Bearer wrong", false), ("Bearer sync-secret", false), ("bearer full-secret", false), ("Bearer  full-secret", false),
        ("Basic ZnVsbC1zZWNyZXQ=", false), ("Bearer full-secret", true),
    ] as [(String?, Bool)])
    func tokenIsRequired(authorization: String?, answered: Bool) throws {
        let answers = try Self.answers(tokens: AccessTokens(full: "full-secret", syncRead: "sync-secret"))
        var fields: HTTPFields = [:]
        if let authorization { fields[.authorization] = authorization }
        #expect((answers.answer(to: Self.request(Self.path + "?v=\(Self.hash)", fields), from: nil, date: "D") != nil) == answered)
    }

    @Test("the fast path answers exactly the requests the router's own checks let through (one access policy)", arguments: [
        "127.0.0.1:8080", "photos.example", "evil.example", "",
    ], [
        nil, "Bearer full-secret", "Bearer sync-secret", "Bearer push-secret", "Bearer wrong",
    ] as [String?])
    func fastPathAgreesWithTheRouter(host: String, authorization: String?) async throws {
        for tokens in [AccessTokens(full: "full-secret", syncRead: "sync-secret", syncPush: "push-secret"), AccessTokens(full: nil, syncRead: nil)] {
            let answers = try Self.answers(tokens: tokens)
            var fields: HTTPFields = [:]
            if let authorization { fields[.authorization] = authorization }
            let request = Self.request(Self.path + "?v=\(Self.hash)", host: host, fields)
            // The router's way: the Host check, the bearer authenticator, the thumbnail route's group rule.
            let policy = answers.policy
            let routed = Request(head: request, body: RequestBody(buffer: ByteBuffer()))
            var context = RequestMiddlewareUnitTests.context()
            context.identity = try await BearerAuthenticator(policy: policy).authenticate(request: routed, context: context)
            let passes: Bool
            do {
                let rule = RequireAccess(scope: .full, policy: policy, refusal: .unauthorized)
                _ = try await HostCheckMiddleware(policy: policy).handle(routed, context: context) { request, context in
                    try await rule.handle(request, context: context, next: RequestMiddlewareUnitTests.ok)
                }
                passes = true
            } catch is ServerError {
                passes = false
            }
            let answered = answers.answer(to: request, from: "127.0.0.1", date: "D") != nil
            #expect(answered == passes, "host \(host), \(authorization ?? "no credentials"), tokens required: \(tokens.areRequired)")
        }
    }

    @Test("a request through a trusted proxy goes to the router, which logs the forwarded client")
    func trustedProxyGoesToTheRouter() throws {
        let answers = try Self.answers(trusted: ["10.0.0.0/8"])
        #expect(answers.answer(to: Self.request(Self.path + "?v=\(Self.hash)"), from: "10.1.2.3", date: "D") == nil)
        #expect(answers.answer(to: Self.request(Self.path + "?v=\(Self.hash)"), from: "192.0.2.7", date: "D") != nil)
    }

    @Test("an expired entry is not answered")
    func expiredEntryGoesToTheRouter() throws {
        #expect(try Self.answers(timeToLive: .zero).answer(to: Self.request(Self.path + "?v=\(Self.hash)"), from: nil, date: "D") == nil)
    }

    @Test("the Date field is IMF-fixdate in UTC", arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_795_000_000, "Wed, 18 Nov 2026 11:06:40 GMT"),
    ])
    func dateText(seconds: Int, text: String) {
        #expect(HTTPDateText.format(secondsSince1970: seconds) == text)
    }
}
