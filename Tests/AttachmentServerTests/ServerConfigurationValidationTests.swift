@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// ``ServerConfiguration/validate()`` refusing each setting out of range with the problem that
/// names it, accepting the edges of each range, and the one-line advice of every
/// ``ServerConfiguration/Problem``. (Binding beyond loopback without a token, trusted proxies
/// and allowed hosts that are not addresses are covered by ``SecurityTests``,
/// ``TrustedProxyTests`` and ``HostAllowListTests``.)
@Suite("Server configuration validation")
struct ServerConfigurationValidationTests {
    /// The default configuration with `change` applied.
    static func configuration(_ change: (inout ServerConfiguration) -> Void) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        change(&configuration)
        return configuration
    }

    @Test("the default configuration is valid: loopback, no token")
    func defaultsAreValid() throws {
        let configuration = ServerConfiguration()
        try configuration.validate()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.token == nil)
        #expect(configuration.maxUploadBytes == 256 << 20)
        #expect(configuration.thumbnailSizes == [200, 400, 800, 2048])
    }

    @Test("a port outside 0...65535 is refused; both ends are accepted", arguments: [-1, 65_536, Int.max, Int.min])
    func portOutOfRange(port: Int) throws {
        #expect(throws: ServerConfiguration.Problem.invalidPort(port)) { try Self.configuration { $0.port = port }.validate() }
    }

    @Test("ports 0 (any free one) and 65535 are valid", arguments: [0, 1, 65_535])
    func portEdges(port: Int) throws {
        try Self.configuration { $0.port = port }.validate()
    }

    @Test("an upload limit of zero or less is refused", arguments: [0, -1] as [Int64])
    func uploadLimit(limit: Int64) {
        #expect(throws: ServerConfiguration.Problem.invalidUploadLimit(limit)) {
            try Self.configuration { $0.maxUploadBytes = limit }.validate()
        }
        #expect(throws: Never.self) { try Self.configuration { $0.maxUploadBytes = 1 }.validate() }
    }

    @Test("an empty token or sync token is refused")
    func emptyTokens() {
        #expect(throws: ServerConfiguration.Problem.emptyToken) { try Self.configuration { $0.token = "" }.validate() }
        #expect(throws: ServerConfiguration.Problem.emptyToken) {
            try Self.configuration { $0.token = "full"; $0.syncToken = "" }.validate()
        }
    }

    @Test("a sync token needs a full token and must differ from it")
    func syncTokenRules() throws {
        #expect(throws: ServerConfiguration.Problem.syncTokenWithoutToken) { try Self.configuration { $0.syncToken = "peer" }.validate() }
        #expect(throws: ServerConfiguration.Problem.syncTokenEqualsToken) {
            try Self.configuration { $0.token = "same"; $0.syncToken = "same" }.validate()
        }
        try Self.configuration { $0.token = "full"; $0.syncToken = "peer" }.validate()
    }

    @Test("a public URL must be http or https with a host", arguments: ["ftp://photos.example.com", "file:///tmp/x", "https:///path-only", "photos.example.com"])
    func invalidPublicURL(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: ServerConfiguration.Problem.invalidPublicURL(url.absoluteString)) {
            try Self.configuration { $0.publicURL = url }.validate()
        }
    }

    @Test("public URLs with a port, a path or an upper-case scheme are valid", arguments: [
        "https://photos.example.com", "http://nas.local:8080", "HTTPS://Photos.Example.com/attach", "http://[fd00::1]:8080",
    ])
    func validPublicURL(text: String) throws {
        let url = try #require(URL(string: text))
        try Self.configuration { $0.publicURL = url }.validate()
    }

    @Test("allowed hosts may be names, IPv4, bare or bracketed IPv6, with a trailing dot", arguments: [
        "photos.example.com", "192.168.1.10", "fd00::1", "[fd00::1]", "nas.local.", "under_score.lan",
    ])
    func validAllowedHosts(name: String) throws {
        try Self.configuration { $0.allowedHosts = [name] }.validate()
    }

    @Test("the first allowed host that is not a host is the one named", arguments: [
        (["ok.example", "bad name", "<x>"], "bad name"), (["", "ok.example"], ""), (["ok.example", "[fd00::1"], "[fd00::1"),
    ])
    func firstBadAllowedHost(names: [String], bad: String) {
        #expect(throws: ServerConfiguration.Problem.invalidAllowedHost(bad)) {
            try Self.configuration { $0.allowedHosts = names }.validate()
        }
    }

    @Test("every duration must be positive, and the problem names the one that is not", arguments: [
        ("session lifetime", { @Sendable (c: inout ServerConfiguration, d: Duration) in c.sessionLifetime = d }),
        ("maximum clock skew", { $0.maxClockSkew = $1 }),
        ("budget interval", { $0.budgetInterval = $1 }),
        ("idle timeout", { $0.idleTimeout = $1 }),
        ("request head timeout", { $0.requestHeadTimeout = $1 }),
        ("upload rate window", { $0.uploadRateWindow = $1 }),
        ("response write timeout", { $0.responseWriteTimeout = $1 }),
    ] as [(String, @Sendable (inout ServerConfiguration, Duration) -> Void)])
    func durations(name: String, set: @Sendable (inout ServerConfiguration, Duration) -> Void) throws {
        for duration in [Duration.zero, .seconds(-1)] {
            #expect(throws: ServerConfiguration.Problem.invalidDuration(name: name)) {
                try Self.configuration { set(&$0, duration) }.validate()
            }
        }
        try Self.configuration { set(&$0, .milliseconds(1)) }.validate()
    }

    @Test("count limits must be positive, and the problem names the limit and the value")
    func countLimits() throws {
        #expect(throws: ServerConfiguration.Problem.invalidLimit(name: "connection limit", 0)) {
            try Self.configuration { $0.maxConnections = 0 }.validate()
        }
        #expect(throws: ServerConfiguration.Problem.invalidLimit(name: "per-client connection limit", 0)) {
            try Self.configuration { $0.maxConnectionsPerClient = 0 }.validate()
        }
        #expect(throws: ServerConfiguration.Problem.invalidLimit(name: "concurrent upload limit", -3)) {
            try Self.configuration { $0.maxConcurrentUploads = -3 }.validate()
        }
        #expect(throws: ServerConfiguration.Problem.invalidLimit(name: "scrub rate", 0)) {
            try Self.configuration { $0.scrubRate = 0 }.validate()
        }
        #expect(throws: ServerConfiguration.Problem.invalidLimit(name: "scrub rate", Int.min)) {
            try Self.configuration { $0.scrubRate = .min }.validate()
        }
        try Self.configuration { $0.maxConnections = 1; $0.maxConcurrentUploads = 1; $0.scrubRate = 1 }.validate()
    }

    @Test("a peer bandwidth or minimum upload rate must be positive when given, and may be left out")
    func rates() throws {
        #expect(throws: ServerConfiguration.Problem.invalidPeerBandwidth(0)) { try Self.configuration { $0.peerBandwidth = 0 }.validate() }
        #expect(throws: ServerConfiguration.Problem.invalidPeerBandwidth(-5)) { try Self.configuration { $0.peerBandwidth = -5 }.validate() }
        #expect(throws: ServerConfiguration.Problem.invalidUploadRate(0)) { try Self.configuration { $0.minimumUploadRate = 0 }.validate() }
        try Self.configuration { $0.peerBandwidth = nil; $0.minimumUploadRate = nil }.validate()
        try Self.configuration { $0.peerBandwidth = 1; $0.minimumUploadRate = 1 }.validate()
    }

    @Test("settings are checked in order: a bad port is reported before a missing token")
    func firstProblemWins() {
        #expect(throws: ServerConfiguration.Problem.invalidPort(70_000)) {
            try Self.configuration { $0.port = 70_000; $0.host = "0.0.0.0"; $0.maxUploadBytes = 0 }.validate()
        }
        #expect(throws: ServerConfiguration.Problem.emptyToken) {
            try Self.configuration { $0.token = ""; $0.host = "0.0.0.0"; $0.maxConnections = 0 }.validate()
        }
    }

    @Test("a TLS certificate that is missing or holds no certificate is refused, naming the file")
    func unreadableTLSFiles() throws {
        let directory = try TemporaryDirectory("tls-config")
        let missing = directory.appending("missing.pem").path(percentEncoded: false)
        let empty = directory.appending("empty.pem")
        try Data().write(to: empty)
        for path in [missing, empty.path(percentEncoded: false)] {
            let configuration = Self.configuration { $0.tls = .init(certificateChain: path, privateKey: path) }
            do {
                try configuration.validate()
                Issue.record("\(path) was accepted")
            } catch {
                guard case .unreadableTLSFile(let named, let reason) = error else {
                    Issue.record("unexpected problem \(error)")
                    continue
                }
                #expect(named == path)
                #expect(!reason.isEmpty)
            }
        }
    }

    @Test("loopback hosts are the 127/8 literals, ::1 and localhost, in any case and with brackets or a trailing dot", arguments: [
        ("127.0.0.1", true), ("127.255.255.254", true), ("LOCALHOST", true), ("localhost.", true), ("[::1]", true), ("::1", true),
        ("0.0.0.0", false), ("::", false), ("128.0.0.1", false), ("127.0.0", false), ("127.0.0.256", false),
        ("localhost.example", false), ("127.0.0.1.nip.io", false), ("", false), ("192.168.1.10", false),
    ])
    func loopback(host: String, isLoopback: Bool) {
        #expect(ServerConfiguration.isLoopback(host) == isLoopback)
    }

    @Test("every problem is one line that names the bad value or setting and what to do", arguments: [
        (ServerConfiguration.Problem.tokenRequired(host: "0.0.0.0"), ["0.0.0.0", "--token"]),
        (.tokenTooShort(host: "0.0.0.0", option: "--token", bytes: 3), ["0.0.0.0", "3-byte --token", "16"]),
        (.invalidLimit(name: "per-client connection limit", 0), ["per-client connection limit 0", "positive"]),
        (.emptyToken, ["empty", "--token"]),
        (.syncTokenWithoutToken, ["--sync-token", "--token"]),
        (.syncTokenEqualsToken, ["--sync-token", "differ"]),
        (.invalidPublicURL("ftp://x"), ["ftp://x", "https://"]),
        (.invalidAllowedHost("bad name"), ["bad name", "photos.example.com"]),
        (.invalidPort(70_000), ["70000", "0...65535"]),
        (.invalidUploadLimit(-1), ["-1", "positive"]),
        (.invalidPeerBandwidth(0), ["peer bandwidth 0", "positive"]),
        (.invalidDuration(name: "idle timeout"), ["idle timeout", "positive"]),
        (.unreadableTLSFile(path: "/etc/cert.pem", reason: "no such file"), ["/etc/cert.pem", "no such file", "--tls-cert"]),
        (.invalidTrustedProxy("proxy.lan"), ["proxy.lan", "10.0.0.0/8"]),
        (.invalidLimit(name: "connection limit", 0), ["connection limit 0", "positive"]),
        (.invalidUploadRate(-4), ["-4", "positive"]),
    ] as [(ServerConfiguration.Problem, [String])])
    func problemDescriptions(problem: ServerConfiguration.Problem, mentions: [String]) {
        let text = problem.description
        #expect(!text.contains("\n"))
        for word in mentions { #expect(text.contains(word), "\(word) in \(text)") }
    }
}
