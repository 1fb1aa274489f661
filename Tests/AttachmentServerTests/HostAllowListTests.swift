@testable import AttachmentServer
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// DNS rebinding, attacked for real: raw HTTP requests to a live loopback server naming hosts
/// an attacker controls.
@Suite("Host allow-list (DNS rebinding)", .timeLimit(.minutes(2)))
struct HostAllowListTests {
    /// Sends one request with exactly these header lines (no Host unless given) and reads the answer.
    /// From `source` (a loopback address) when given.
    static func send(_ port: Int, from source: String? = nil, _ requestLine: String, _ headers: [String],
                     body: Data = Data()) async throws -> RawHTTPConnection.Response {
        let head = ([requestLine] + headers + (body.isEmpty ? [] : ["Content-Length: \(body.count)"]) + ["Connection: close", "", ""])
            .joined(separator: "\r\n")
        let response = try await RawHTTPConnection.with(port: port, from: source) { write, read in
            try await write(Data(head.utf8) + body)
            return try await read()
        }
        return try #require(response)
    }

    static func errorCode(_ response: RawHTTPConnection.Response) -> String? {
        let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    @Test("a request naming another host is refused before routing, whatever the path")
    func foreignHostIsRefused() async throws {
        let fixture = try ServerFixture()
        try await LiveServerTests.serve(fixture) { port, _ in
            for path in ["/api/notes", "/", "/health", "/sync/changes", "/no/such/route", "/static/app.js"] {
                let response = try await Self.send(port, "GET \(path) HTTP/1.1", ["Host: rebind.attacker.example:\(port)"])
                #expect(response.status == 421, "\(path)")
                #expect(Self.errorCode(response) == "host_not_allowed", "\(path)")
            }
            let ok = try await Self.send(port, "GET /api/notes HTTP/1.1", ["Host: 127.0.0.1:\(port)"])
            #expect(ok.status == 200)
        }
    }

    @Test("a rebinding page's write, with its own Origin and Host, is refused and stores nothing")
    func rebindingWriteStoresNothing() async throws {
        let fixture = try ServerFixture()
        try await LiveServerTests.serve(fixture) { port, _ in
            let body = Data(#"{"title":"planted"}"#.utf8)
            let response = try await Self.send(port, "POST /api/notes HTTP/1.1", [
                "Host: rebind.attacker.example:\(port)", "Origin: http://rebind.attacker.example:\(port)",
                "Content-Type: application/json",
            ], body: body)
            #expect(response.status == 421)
            // The same write from a page on another origin to the real address: refused too.
            let crossOrigin = try await Self.send(port, "POST /api/notes HTTP/1.1", [
                "Host: 127.0.0.1:\(port)", "Origin: http://rebind.attacker.example:\(port)", "Content-Type: application/json",
            ], body: body)
            #expect(crossOrigin.status == 403)
            #expect(Self.errorCode(crossOrigin) == "cross_origin")
        }
        #expect(try await fixture.store().notes(limit: 10).isEmpty, "nothing was stored")
    }

    @Test("loopback literals and localhost are answered on any port; a request without Host is refused")
    func loopbackNamesAreAnswered() async throws {
        let fixture = try ServerFixture()
        try await LiveServerTests.serve(fixture) { port, _ in
            for host in ["127.0.0.1", "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "127.8.9.10:1"] {
                #expect(try await Self.send(port, "GET /health HTTP/1.1", ["Host: \(host)"]).status == 200, "\(host)")
            }
            for host in ["127.0.0.1.attacker.example", "localhost.attacker.example", "127.0.0.1:80:80", "exa mple", ""] {
                #expect(try await Self.send(port, "GET /health HTTP/1.1", ["Host: \(host)"]).status != 200, "\(host)")
            }
            let missing = try await Self.send(port, "GET /api/notes HTTP/1.0", [])
            #expect(missing.status == 400)
            #expect(Self.errorCode(missing) == "host_required")
        }
    }

    @Test("names given with --allowed-host and --public-url are answered, and the public origin may write")
    func configuredNamesAreAnswered() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.allowedHosts = ["nas.local"]
        fixture.configuration.publicURL = URL(string: "https://photos.example.com")
        try await LiveServerTests.serve(fixture) { port, _ in
            #expect(try await Self.send(port, "GET /health HTTP/1.1", ["Host: nas.local:\(port)"]).status == 200)
            #expect(try await Self.send(port, "GET /health HTTP/1.1", ["Host: photos.example.com"]).status == 200)
            #expect(try await Self.send(port, "GET /health HTTP/1.1", ["Host: other.example.com"]).status == 421)
            // Behind a proxy the Host may be the proxy's upstream address; the browser's Origin is the public one.
            let write = try await Self.send(port, "POST /api/notes HTTP/1.1", [
                "Host: 127.0.0.1:\(port)", "Origin: https://photos.example.com", "Content-Type: application/json",
            ], body: Data(#"{"title":"from the proxy"}"#.utf8))
            #expect(write.status == 201)
        }
    }

    @Test("the host of an authority is parsed strictly", arguments: [
        ("127.0.0.1:8080", "127.0.0.1"), ("[::1]:8080", "::1"), ("[::1]", "::1"), ("Photos.Example.COM.", "photos.example.com"),
        ("localhost", "localhost"), ("a:b", nil), ("[::1", nil), ("[::1]x", nil), ("host:", nil), ("ex ample", nil),
        ("<script>", nil), ("", nil), ("EXAMPLE.com:443", "example.com"), ("a_b-c", "a_b-c"), ("[::1]:", nil),
        ("\u{212A}.example", nil), ("ex\u{0301}ample", nil), ("photos.example:8\u{0661}", nil), ("[]", nil), (".", nil),
    ] as [(String, String?)])
    func authorityParsing(authority: String, host: String?) {
        #expect(AllowedHosts.host(ofAuthority: authority) == host)
    }

    @Test("loopback is 127.a.b.c with parts up to 255, localhost and ::1", arguments: [
        ("127.0.0.1", true), ("127.255.255.255", true), ("127.1.2.3", true), ("localhost", true), ("::1", true),
        ("127.256.0.1", false), ("127.0.0", false), ("127.0.0.1.2", false), ("128.0.0.1", false), ("127.-0.0.1", false),
        ("127..0.1", false), ("127.0000.0.1", false), ("localhost.example", false),
    ] as [(String, Bool)])
    func loopbackParsing(host: String, loopback: Bool) {
        #expect(AllowedHosts.isLoopback(host) == loopback)
    }

    @Test("an allowed host that is not a host name is refused at start", arguments: ["exa mple", "<x>", "http://x"])
    func badAllowedHostIsRefused(name: String) {
        var configuration = ServerConfiguration()
        configuration.allowedHosts = [name]
        #expect(throws: ServerConfiguration.Problem.invalidAllowedHost(name)) { try configuration.validate() }
    }
}
