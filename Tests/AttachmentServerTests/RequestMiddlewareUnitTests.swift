@testable import AttachmentServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The request middlewares one at a time, each called directly with a request made in memory
/// and a `next` that stands for the rest of the router: the cross-site write rule
/// (``SameOriginWritesMiddleware``), who sent a request (``ForwardedHeadersMiddleware``), the
/// security headers, the `Host` check, the access rule of a route group (``RequireAccess``),
/// and 405 versus 404 (``MethodNotAllowedMiddleware`` over its ``RouteTable``).
@Suite("Request middlewares, one at a time")
struct RequestMiddlewareUnitTests {
    /// A logger that keeps the expected error logs of these tests out of the output.
    static var quietLogger: Logger {
        var logger = Logger(label: "unit-tests")
        logger.logLevel = .critical
        return logger
    }

    static func context() -> AppRequestContext {
        AppRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: Self.quietLogger))
    }

    static func request(_ method: HTTPRequest.Method = .get, _ path: String = "/api/notes", authority: String? = "127.0.0.1:8080",
                        _ headers: HTTPFields = [:]) -> Request {
        Request(head: HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: headers),
                body: RequestBody(buffer: ByteBuffer()))
    }

    /// A request with `headers` to the default path.
    static func request(_ method: HTTPRequest.Method, _ headers: HTTPFields) -> Request {
        request(method, "/api/notes", headers)
    }

    /// The rest of the router, answering 200.
    static func ok(_ request: Request, _ context: AppRequestContext) async throws -> Response { Response(status: .ok) }

    // MARK: - Same-origin writes

    @Test("a browser's Origin naming the address the request was sent to is same-site", arguments: [
        ("http", "127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http", "LOCALHOST:8080", "http://localhost:8080"),
        ("http", "localhost:80", "http://localhost"),
        ("https", "photos.example.com:443", "https://photos.example.com"),
        ("https", "photos.example.com", "HTTPS://PHOTOS.EXAMPLE.COM"),
        ("http", "[::1]:8080", "http://[::1]:8080"),
    ])
    func sameSiteOrigins(scheme: String, authority: String, origin: String) {
        let middleware = SameOriginWritesMiddleware(publicURL: nil)
        let request = Self.request(.post, authority: authority, [.origin: origin])
        #expect(!middleware.isCrossSite(request, scheme: scheme))
    }

    @Test("an Origin with another scheme, host or port than the request's is cross-site", arguments: [
        ("http", "127.0.0.1:8080", "https://127.0.0.1:8080"),
        ("http", "127.0.0.1:8080", "http://127.0.0.1:8081"),
        ("http", "127.0.0.1:8080", "http://127.0.0.1"),
        ("https", "photos.example.com", "http://photos.example.com"),
        ("http", "localhost:8080", "http://localhost.evil.example:8080"),
        ("http", "localhost:8080", "null"),
        ("http", "localhost:443", "http://localhost"),
    ])
    func crossSiteOrigins(scheme: String, authority: String, origin: String) {
        let middleware = SameOriginWritesMiddleware(publicURL: nil)
        #expect(middleware.isCrossSite(Self.request(.post, authority: authority, [.origin: origin]), scheme: scheme))
    }

    @Test("Sec-Fetch-Site: cross-site is cross-site whatever the Origin; no Origin and no Sec-Fetch-Site is a non-browser client")
    func fetchSiteAndMissingOrigin() throws {
        let middleware = SameOriginWritesMiddleware(publicURL: nil)
        let secFetchSite = SameOriginWritesMiddleware.secFetchSite
        #expect(middleware.isCrossSite(Self.request(.post, [secFetchSite: "Cross-Site", .origin: "http://127.0.0.1:8080"]), scheme: "http"))
        #expect(!middleware.isCrossSite(Self.request(.post, [secFetchSite: "same-origin", .origin: "http://127.0.0.1:8080"]), scheme: "http"))
        #expect(!middleware.isCrossSite(Self.request(.post, [secFetchSite: "none"]), scheme: "http"))
        #expect(!middleware.isCrossSite(Self.request(.post), scheme: "http"))
        #expect(middleware.isCrossSite(Self.request(.post, authority: nil, [.origin: "http://127.0.0.1:8080"]), scheme: "http"),
                "an Origin on a request with no authority matches nothing")
    }

    @Test("the public URL's origin may write even when the Host is the proxy's upstream address")
    func publicOriginMayWrite() throws {
        let middleware = SameOriginWritesMiddleware(publicURL: URL(string: "https://Photos.Example.com/attach"))
        #expect(middleware.publicOrigin == "https://photos.example.com")
        #expect(!middleware.isCrossSite(Self.request(.post, authority: "10.0.0.5:8080", [.origin: "https://photos.example.com"]), scheme: "http"))
        #expect(middleware.isCrossSite(Self.request(.post, authority: "10.0.0.5:8080", [.origin: "https://photos.example.com:8443"]), scheme: "http"))
    }

    @Test("the origin of a URL keeps a port only when it is not the scheme's default, and brackets an IPv6 host", arguments: [
        ("https://photos.example.com/x?y", "https://photos.example.com"),
        ("https://photos.example.com:443", "https://photos.example.com"),
        ("http://nas.local:80/", "http://nas.local"),
        ("http://nas.local:8080", "http://nas.local:8080"),
        ("https://nas.local:80", "https://nas.local:80"),
        ("HTTP://NAS.Local:8080", "http://nas.local:8080"),
        ("http://[fd00::1]:8080", "http://[fd00::1]:8080"),
    ])
    func originOfURL(text: String, origin: String) throws {
        #expect(SameOriginWritesMiddleware.origin(of: try #require(URL(string: text))) == origin)
    }

    @Test("only writes are refused from another site; reads from anywhere pass", arguments: [
        (HTTPRequest.Method.post, true), (.put, true), (.patch, true), (.delete, true), (.get, false), (.head, false), (.options, false),
    ])
    func onlyWritesAreRefused(method: HTTPRequest.Method, refused: Bool) async throws {
        let middleware = SameOriginWritesMiddleware(publicURL: nil)
        let request = Self.request(method, [.origin: "https://evil.example"])
        do {
            let response = try await middleware.handle(request, context: Self.context(), next: Self.ok)
            #expect(!refused)
            #expect(response.status == .ok)
        } catch let error as ServerError {
            #expect(refused)
            #expect(error.status == .forbidden && error.code == "cross_origin")
        }
    }

    // MARK: - Forwarded headers

    static func forwarded(_ forwardedFor: String?, proto: String? = nil) -> Request {
        var headers: HTTPFields = [:]
        if let forwardedFor { headers[ForwardedHeadersMiddleware.forwardedFor] = forwardedFor }
        if let proto { headers[ForwardedHeadersMiddleware.forwardedProto] = proto }
        return request(.get, "/", headers)
    }

    @Test("a connection from an untrusted address is the client itself, whatever it writes in the forwarded headers")
    func untrustedPeerIsTheClient() throws {
        let middleware = ForwardedHeadersMiddleware(trusted: try TrustedProxies(parsing: ["10.0.0.1"]), tls: false)
        let client = middleware.client(of: Self.forwarded("203.0.113.9", proto: "https"), connectedFrom: "192.0.2.7")
        #expect(client == RequestClient(address: "192.0.2.7", scheme: "http", proxy: nil))
        let noPeer = middleware.client(of: Self.forwarded("203.0.113.9"), connectedFrom: nil)
        #expect(noPeer == .direct(address: nil, tls: false))
        let tls = ForwardedHeadersMiddleware(trusted: .none, tls: true)
        #expect(tls.client(of: Self.forwarded(nil, proto: "http"), connectedFrom: "10.0.0.1").scheme == "https")
    }

    @Test("through trusted proxies the client is the rightmost hop that is not one of them", arguments: [
        ("203.0.113.9", "203.0.113.9"),
        ("6.6.6.6, 203.0.113.9", "203.0.113.9"),
        ("6.6.6.6, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
        ("6.6.6.6,203.0.113.9,10.0.0.2,10.0.0.3", "203.0.113.9"),
        ("2001:db8::7", "2001:db8::7"),
        ("not-an-address, 203.0.113.9", "203.0.113.9"),
        ("203.0.113.9, not-an-address", "10.0.0.1"),
        ("10.0.0.3, 10.0.0.2", "10.0.0.3"),
        ("", "10.0.0.1"),
    ])
    func trustedChain(forwardedFor: String, client: String) throws {
        let middleware = ForwardedHeadersMiddleware(trusted: try TrustedProxies(parsing: ["10.0.0.0/24"]), tls: false)
        let found = middleware.client(of: Self.forwarded(forwardedFor), connectedFrom: "10.0.0.1")
        #expect(found.address == client)
        #expect(found.proxy == "10.0.0.1")
    }

    @Test("X-Forwarded-For split over several header lines is read as one list, the last line last")
    func forwardedForOverSeveralLines() throws {
        let middleware = ForwardedHeadersMiddleware(trusted: try TrustedProxies(parsing: ["10.0.0.1"]), tls: false)
        var headers = HTTPFields()
        headers.append(HTTPField(name: ForwardedHeadersMiddleware.forwardedFor, value: "198.51.100.1"))
        headers.append(HTTPField(name: ForwardedHeadersMiddleware.forwardedFor, value: "203.0.113.9"))
        #expect(middleware.client(of: Self.request(.get, "/", headers), connectedFrom: "10.0.0.1").address == "203.0.113.9")
    }

    @Test("a trusted proxy's scheme is the first X-Forwarded-Proto entry when it is http or https", arguments: [
        ("https", "https"), ("HTTPS", "https"), (" https , http", "https"), ("http", "http"), ("wss", "http"), ("", "http"),
    ])
    func forwardedProto(proto: String, scheme: String) throws {
        let middleware = ForwardedHeadersMiddleware(trusted: try TrustedProxies(parsing: ["10.0.0.1"]), tls: false)
        #expect(middleware.client(of: Self.forwarded(nil, proto: proto), connectedFrom: "10.0.0.1").scheme == scheme)
    }

    @Test("the forwarded headers are removed before the rest of the router sees the request; other headers stay")
    func forwardedHeadersAreRemoved() async throws {
        let middleware = ForwardedHeadersMiddleware(trusted: .none, tls: false)
        let request = Self.request(.get, "/", [
            ForwardedHeadersMiddleware.forwardedFor: "1.2.3.4", ForwardedHeadersMiddleware.forwardedProto: "https",
            ForwardedHeadersMiddleware.forwardedHost: "evil.example", ForwardedHeadersMiddleware.forwarded: "for=1.2.3.4",
            .accept: "text/html",
        ])
        let response = try await middleware.handle(request, context: Self.context()) { seen, context in
            for name in [ForwardedHeadersMiddleware.forwardedFor, ForwardedHeadersMiddleware.forwardedProto,
                         ForwardedHeadersMiddleware.forwardedHost, ForwardedHeadersMiddleware.forwarded] {
                #expect(seen.headers[name] == nil, "\(name)")
            }
            #expect(seen.headers[.accept] == "text/html")
            #expect(context.client == .direct(address: nil, tls: false))
            return Response(status: .noContent)
        }
        #expect(response.status == .noContent)
    }

    // MARK: - Security headers and Host

    @Test("every answer gets the strict policy, nosniff, no framing and same-origin referrers")
    func securityHeaders() async throws {
        let response = try await SecurityHeadersMiddleware().handle(Self.request(), context: Self.context(), next: Self.ok)
        #expect(response.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.contentSecurityPolicy)
        #expect(response.headers[.xContentTypeOptions] == "nosniff")
        #expect(response.headers[SecurityHeadersMiddleware.frameOptions] == "DENY")
        #expect(response.headers[SecurityHeadersMiddleware.referrerPolicy] == "same-origin")
        let policy = SecurityHeadersMiddleware.contentSecurityPolicy
        for directive in ["default-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"] {
            #expect(policy.contains(directive), "\(directive)")
        }
        #expect(!policy.contains("unsafe"))
    }

    @Test("an answer's own Content-Security-Policy (a sandboxed download) is kept; the other headers are still set")
    func ownPolicyIsKept() async throws {
        let response = try await SecurityHeadersMiddleware().handle(Self.request(), context: Self.context()) { _, _ in
            Response(status: .ok, headers: [.contentSecurityPolicy: "default-src 'none'; sandbox", .xContentTypeOptions: "other"])
        }
        #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
        #expect(response.headers[.xContentTypeOptions] == "nosniff")
        #expect(response.headers[SecurityHeadersMiddleware.frameOptions] == "DENY")
    }

    @Test("the Host check answers 400 without a Host, 421 for a foreign one, and passes an allowed one", arguments: [
        (nil, 400, "host_required"), ("", 400, "host_required"), ("evil.example", 421, "host_not_allowed"),
        ("nas.local:8080", 200, nil), ("127.0.0.1:1", 200, nil), ("localhost", 200, nil),
    ] as [(String?, Int, String?)])
    func hostCheck(authority: String?, status: Int, code: String?) async throws {
        let middleware = HostCheckMiddleware(policy: Self.policy(tokens: AccessTokens(full: nil, syncRead: nil)))
        do {
            let response = try await middleware.handle(Self.request(authority: authority), context: Self.context(), next: Self.ok)
            #expect(response.status.code == status)
        } catch let error as ServerError {
            #expect(error.status.code == status)
            #expect(error.code == code)
        }
    }

    // MARK: - Access

    /// The policy of a server bound to loopback that also answers to `nas.local`.
    static func policy(tokens: AccessTokens) -> AccessPolicy {
        AccessPolicy(hosts: AllowedHosts(bindHost: "127.0.0.1", publicURL: nil, extra: ["nas.local"]), tokens: tokens)
    }

    static func context(identity: AccessScope?) -> AppRequestContext {
        var context = context()
        context.identity = identity.map { Principal(scope: $0, proof: .bearer) }
        return context
    }

    @Test("a server without a token lets everyone through every group")
    func openServer() async throws {
        let rule = RequireAccess(scope: .full, policy: Self.policy(tokens: AccessTokens(full: nil, syncRead: nil)), refusal: .unauthorized)
        #expect(try await rule.handle(Self.request(), context: Self.context(identity: nil), next: Self.ok).status == .ok)
    }

    @Test("with a token, a scope passes where it covers the group's and is refused with 403 where it does not", arguments: [
        (AccessScope.full, AccessScope.full, true), (.full, .syncRead, true), (.syncRead, .syncRead, true), (.syncRead, .full, false),
    ])
    func scopes(held: AccessScope, required: AccessScope, passes: Bool) async throws {
        let rule = RequireAccess(scope: required, policy: Self.policy(tokens: AccessTokens(full: "f", syncRead: "s")), refusal: .unauthorized)
        #expect(held.covers(required) == passes)
        do {
            let response = try await rule.handle(Self.request(), context: Self.context(identity: held), next: Self.ok)
            #expect(passes && response.status == .ok)
        } catch let error as ServerError {
            #expect(!passes)
            #expect(error == .insufficientScope(held))
        }
    }

    @Test("with a token, an anonymous API request is a 401 and an anonymous page goes to the login page, coming back after")
    func anonymous() async throws {
        let tokens = AccessTokens(full: "f", syncRead: nil)
        let api = RequireAccess(scope: .full, policy: Self.policy(tokens: tokens), refusal: .unauthorized)
        await #expect(throws: ServerError.unauthorized) {
            try await api.handle(Self.request(), context: Self.context(identity: nil), next: Self.ok)
        }
        let pages = RequireAccess(scope: .full, policy: Self.policy(tokens: tokens), refusal: .loginPage)
        let home = try await pages.handle(Self.request(.get, "/"), context: Self.context(identity: nil), next: Self.ok)
        #expect(home.status == .seeOther)
        #expect(home.headers[.location] == "/login?next=/")
        #expect(home.headers[.cacheControl] == "no-store")
        let search = try await pages.handle(Self.request(.get, "/notes/abc?q=beach&offset=50"), context: Self.context(identity: nil), next: Self.ok)
        #expect(search.headers[.location] == "/login?next=/notes/abc%3Fq%3Dbeach%26offset%3D50")
    }

    @Test("tokens grant their scope only when presented exactly", arguments: [
        ("full-token", AccessScope.full), ("sync-token", .syncRead), ("full-toke", nil), ("full-token ", nil), ("FULL-TOKEN", nil),
        ("", nil), ("sync-tokenX", nil),
    ] as [(String, AccessScope?)])
    func tokenScopes(presented: String, scope: AccessScope?) {
        let tokens = AccessTokens(full: "full-token", syncRead: "sync-token")
        #expect(tokens.areRequired)
        #expect(tokens.scope(of: presented) == scope)
        #expect(AccessTokens(full: nil, syncRead: nil).scope(of: presented) == nil)
        #expect(!AccessTokens(full: nil, syncRead: nil).areRequired)
    }

    @Test("constant-time comparison is plain equality of the bytes, lengths included")
    func constantTimeEqual() {
        #expect(AccessTokens.constantTimeEqual([], []))
        #expect(AccessTokens.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!AccessTokens.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!AccessTokens.constantTimeEqual([0, 2, 3], [1, 2, 3]))
        #expect(!AccessTokens.constantTimeEqual([1, 2], [1, 2, 0]))
        #expect(!AccessTokens.constantTimeEqual([1, 2, 3], []))
    }

    // MARK: - 405 versus 404

    static func routeTable() -> RouteTable {
        let table = RouteTable()
        table.record([
            (path: "/api/notes", method: "GET"), (path: "/api/notes", method: "POST"),
            (path: "/api/notes/{id}", method: "GET"), (path: "/api/notes/{id}", method: "PATCH"), (path: "/api/notes/{id}", method: "DELETE"),
            (path: "/blobs/sha256/:hash", method: "GET"), (path: "/static/**", method: "GET"), (path: "/login", method: "POST"),
            (path: "/api/*/attachments", method: "POST"),
        ])
        return table
    }

    @Test("the route table lists the methods of a path, sorted, with HEAD wherever GET is", arguments: [
        ("/api/notes", ["GET", "HEAD", "POST"]),
        ("/api/notes/", ["GET", "HEAD", "POST"]),
        ("/api/notes/0b7e", ["DELETE", "GET", "HEAD", "PATCH"]),
        ("/blobs/sha256/abc", ["GET", "HEAD"]),
        ("/static/css/app.css", ["GET", "HEAD"]),
        ("/login", ["POST"]),
        ("/api/x/attachments", ["POST"]),
        ("/api/notes/0b7e/extra", []),
        ("/api", []),
        ("/nothing", []),
    ])
    func routeTableMethods(path: String, methods: [String]) {
        #expect(Self.routeTable().methods(for: path) == methods)
    }

    @Test("a path that exists answers 405 with Allow for a method it does not take")
    func methodNotAllowed() async throws {
        let middleware = MethodNotAllowedMiddleware(table: Self.routeTable())
        do {
            _ = try await middleware.handle(Self.request(.put, "/api/notes"), context: Self.context()) { _, _ in throw HTTPError(.notFound) }
            Issue.record("no error")
        } catch let error as ServerError {
            #expect(error.status == .methodNotAllowed && error.code == "method_not_allowed")
            #expect(error.headers[.allow] == "GET, HEAD, POST")
            #expect(error.message.contains("PUT"))
        }
    }

    @Test("the router's 404 stays a 404 for an unknown path, or for a method the path takes; a handler's own 404 is untouched")
    func notFoundStays() async throws {
        let middleware = MethodNotAllowedMiddleware(table: Self.routeTable())
        for (method, path) in [(HTTPRequest.Method.put, "/nowhere"), (.get, "/api/notes")] {
            await #expect(throws: HTTPError.self, "\(method) \(path)") {
                try await middleware.handle(Self.request(method, path), context: Self.context()) { _, _ in throw HTTPError(.notFound) }
            }
        }
        await #expect(throws: ServerError.notFound("mine", code: "note_not_found")) {
            try await middleware.handle(Self.request(.put, "/api/notes"), context: Self.context()) { _, _ in
                throw ServerError.notFound("mine", code: "note_not_found")
            }
        }
        let passed = try await middleware.handle(Self.request(.put, "/api/notes"), context: Self.context(), next: Self.ok)
        #expect(passed.status == .ok)
    }
}
