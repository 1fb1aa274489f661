@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// A flood of idle connections against a live server: one address cannot keep another out,
/// the refusals and sheds are logged (a few lines, not one each) and counted in `/metrics`.
@Suite("Fair connections", .serialized, .timeLimit(.minutes(3)))
struct FairConnectionTests {
    static let token = "fair-connections-token"

    /// A server with a token, logging warnings and up into `capture`.
    static func fixture(_ capture: LogCapture) throws -> ServerFixture {
        var fixture = try ServerFixture(token: token)
        fixture.configuration.logger = capture.logger(level: .notice)
        return fixture
    }

    /// `GET path` with the token from `source`, on a connection of its own.
    static func get(_ path: String, port: Int, from source: String) async throws -> RawHTTPConnection.Response {
        try await HostAllowListTests.send(port, from: source, "GET \(path) HTTP/1.1", ["Host: 127.0.0.1", "Authorization: Bearer \(token)"])
    }

    /// The value of the counter series `series` (name and labels, as `/metrics` writes them).
    static func counter(_ series: String, port: Int) async throws -> Int {
        let text = String(decoding: try await get("/metrics", port: port, from: "127.0.0.2").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    /// `count` idle connections from 127.0.0.1 (each may be closed by the server at once), made
    /// off the cooperative pool.
    static func flood(_ count: Int, port: Int) async throws -> [BareSocket] {
        try await BareSocket.connecting(count, port: port)
    }

    @Test("500 idle connections from one address, renewed, do not stop another address's requests; refusals are logged and counted")
    func floodFromOneAddress() async throws {
        let capture = LogCapture()
        try await LiveServerTests.serve(try Self.fixture(capture)) { port, _ in
            var sockets = try await Self.flood(500, port: port)
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let started = clock.now
            for round in 0..<20 {
                // The attacker renews its connections while the other address asks.
                sockets.removeFirst(25)
                sockets += try await Self.flood(25, port: port)
                let response = try await Self.get("/api/notes", port: port, from: "127.0.0.2")
                #expect(response.status == 200, "request \(round) from 127.0.0.2")
            }
            #expect(clock.now - started < .seconds(60), "20 requests took \(clock.now - started)")
            let refused = try await Self.counter(#"attach_connections_refused_total{reason="client_limit"}"#, port: port)
            #expect(refused >= 500 - ServerConfiguration().maxConnectionsPerClient, "refused \(refused)")
            let lines = capture.records("connection refused: too many from one client address")
            #expect((1...8).contains(lines.count), "\(lines.count) log lines for \(refused) refusals")
            #expect(lines.first?.metadata["client.address"] == "127.0.0.1")
            #expect(lines.compactMap { $0.metadata["events"].flatMap(Int.init) }.reduce(0, +) >= 1)
            withExtendedLifetime(sockets) {}
        }
    }

    @Test("at the connection limit an idle connection that never authenticated is shed for a new one; an authenticated one stays")
    func idleUnauthenticatedAreShedFirst() async throws {
        let capture = LogCapture()
        var fixture = try Self.fixture(capture)
        fixture.configuration.maxConnections = 10
        fixture.configuration.maxConnectionsPerClient = 10
        try await LiveServerTests.serve(fixture) { port, _ in
            let request = LiveServerTests.requestHead("GET", "/api/notes", ["Authorization: Bearer \(Self.token)"])
            try await RawHTTPConnection.with(port: port, from: "127.0.0.3") { write, read in
                try await write(request)
                #expect(try await read()?.status == 200)
                // The server is now full of idle connections: this one (authenticated) and the flood's.
                var sockets = try await Self.flood(9, port: port)
                try await Task.sleep(for: .milliseconds(300))
                for round in 0..<5 {
                    #expect(try await Self.get("/api/notes", port: port, from: "127.0.0.2").status == 200, "round \(round)")
                    sockets += try await Self.flood(3, port: port)
                    try await Task.sleep(for: .milliseconds(100))
                }
                // The authenticated connection was kept through it all.
                try await write(request)
                #expect(try await read()?.status == 200, "the authenticated connection still answers")
                withExtendedLifetime(sockets) {}
            }
            #expect(try await Self.counter(#"attach_connections_shed_total{state="unauthenticated"}"#, port: port) >= 5)
            #expect(try await Self.counter(#"attach_connections_shed_total{state="authenticated"}"#, port: port) == 0)
            #expect(!capture.records("idle connection closed to make room").isEmpty)
        }
    }

    @Test("a trusted proxy's own address is not limited as one client")
    func trustedProxyIsNotOneClient() async throws {
        let capture = LogCapture()
        var fixture = try Self.fixture(capture)
        fixture.configuration.maxConnectionsPerClient = 2
        fixture.configuration.trustedProxies = ["127.0.0.1"]
        try await LiveServerTests.serve(fixture) { port, _ in
            let sockets = try await Self.flood(6, port: port)
            try await Task.sleep(for: .milliseconds(200))
            for socket in sockets { socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") }
            for socket in sockets { #expect(await socket.drained().bytes > 0) }
            // From any other address the limit holds.
            let others = try await BareSocket.connecting(4, port: port, from: "127.0.0.4")
            try await Task.sleep(for: .milliseconds(200))
            for socket in others { socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") }
            var answered = 0
            for socket in others {
                if await socket.drained().bytes > 0 { answered += 1 }
            }
            #expect(answered == 2)
        }
    }
}
