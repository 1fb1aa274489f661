@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// `X-Forwarded-*` believed from the configured proxy only, attacked for real: a live server
/// trusts `127.0.0.2`; requests come from `127.0.0.1` (any client) and from `127.0.0.2` (the
/// proxy), both on loopback.
@Suite("Trusted proxies and forwarded headers", .timeLimit(.minutes(2)))
struct TrustedProxyTests {
    static let proxy = "127.0.0.2"

    /// A server that trusts ``proxy`` and logs every request into `capture`.
    static func fixture(_ capture: LogCapture) throws -> ServerFixture {
        var fixture = try ServerFixture()
        fixture.configuration.trustedProxies = [proxy]
        fixture.configuration.logger = capture.logger()
        return fixture
    }

    @Test("a client that writes X-Forwarded-For itself is logged at its own address")
    func forgedForwardedForIsIgnored() async throws {
        let capture = LogCapture()
        try await LiveServerTests.serve(try Self.fixture(capture)) { port, _ in
            let response = try await HostAllowListTests.send(port, from: "127.0.0.1", "GET /health?forged HTTP/1.1", [
                "Host: 127.0.0.1:\(port)", "X-Forwarded-For: 203.0.113.9", "X-Forwarded-Proto: https",
            ])
            #expect(response.status == 200)
        }
        let record = try #require(capture.records("request").last)
        #expect(record.metadata["client.address"] == "127.0.0.1")
        #expect(record.metadata["http.scheme"] == "http")
        #expect(record.metadata["net.proxy"] == nil)
    }

    @Test("through the trusted proxy the client is the rightmost address it did not add itself")
    func trustedProxyNamesTheClient() async throws {
        let capture = LogCapture()
        try await LiveServerTests.serve(try Self.fixture(capture)) { port, _ in
            // The leftmost entry is whatever the client claimed; the proxy appended the real one.
            for (path, forwardedFor) in [("/health?one", "203.0.113.9"), ("/health?chain", "10.9.9.9, 198.51.100.7"),
                                         ("/health?twice", "198.51.100.7, 127.0.0.2"), ("/health?junk", "<script>, nonsense")] {
                let response = try await HostAllowListTests.send(port, from: Self.proxy, "GET \(path) HTTP/1.1", [
                    "Host: 127.0.0.1:\(port)", "X-Forwarded-For: \(forwardedFor)", "X-Forwarded-Proto: https",
                ])
                #expect(response.status == 200)
            }
        }
        #expect(capture.records("request").count == 4)
        let logged = capture.records("request").map { $0.metadata["client.address"] }
        #expect(logged == ["203.0.113.9", "198.51.100.7", "198.51.100.7", Self.proxy])
        #expect(capture.records("request").allSatisfy { $0.metadata["net.proxy"] == Self.proxy && $0.metadata["http.scheme"] == "https" })
    }

    @Test("a browser's write through a TLS-terminating proxy is same-origin; the same headers from anyone else are not")
    func forwardedSchemeDecidesTheOrigin() async throws {
        let capture = LogCapture()
        let fixture = try Self.fixture(capture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let headers = ["Host: 127.0.0.1:\(port)", "Origin: https://127.0.0.1:\(port)", "X-Forwarded-Proto: https",
                           "Content-Type: application/json"]
            let body = Data(#"{"title":"through the proxy"}"#.utf8)
            let proxied = try await HostAllowListTests.send(port, from: Self.proxy, "POST /api/notes HTTP/1.1", headers, body: body)
            #expect(proxied.status == 201)
            let forged = try await HostAllowListTests.send(port, from: "127.0.0.1", "POST /api/notes HTTP/1.1", headers,
                                                           body: Data(#"{"title":"forged"}"#.utf8))
            #expect(forged.status == 403)
            #expect(HostAllowListTests.errorCode(forged) == "cross_origin")
        }
        #expect(try await fixture.store().notes(limit: 10).map(\.title) == ["through the proxy"])
    }

    @Test("trusted proxies are addresses or networks", arguments: [
        ("127.0.0.1", "127.0.0.1", true), ("127.0.0.1", "127.0.0.2", false), ("10.0.0.0/8", "10.200.3.4", true),
        ("10.0.0.0/8", "11.0.0.1", false), ("192.168.1.0/25", "192.168.1.127", true), ("192.168.1.0/25", "192.168.1.128", false),
        ("::1", "::1", true), ("fd00::/8", "fd12:3456::1", true), ("fd00::/8", "fe80::1", false),
        ("127.0.0.1", "::ffff:127.0.0.1", true), ("0.0.0.0/0", "8.8.8.8", true), ("10.0.0.0/8", "not an address", false),
    ])
    func networkMembership(entry: String, address: String, trusted: Bool) throws {
        #expect(try TrustedProxies(parsing: [entry]).contains(address) == trusted)
    }

    @Test("a trusted proxy that is not an address is refused at start", arguments: ["proxy.example", "10.0.0.0/33", "::1/129", "1.2.3.4/", "1.2.3.4/+8", ""])
    func badTrustedProxyIsRefused(entry: String) {
        var configuration = ServerConfiguration()
        configuration.trustedProxies = [entry]
        #expect(throws: ServerConfiguration.Problem.invalidTrustedProxy(entry)) { try configuration.validate() }
    }
}
