import Foundation
import Testing
import TestSupport

/// Credentials per peer and peer text that cannot forge a line: `attach serve`, `attach sync
/// pull` and `attach fetch` against recording and hostile peers (``ScriptedHTTPServer``) on loopback.
@Suite("Each peer gets its own credential, and its text is quoted", .serialized, .timeLimit(.minutes(3)))
struct PeerCredentialTests {
    static let tokenOne = "token-of-peer-one-5b0c1d"
    static let tokenTwo = "token-of-peer-two-9e7f42"
    static let tokenThree = "token-of-peer-three-a61d"

    /// A peer that records what it is sent and answers an empty change feed.
    static func recordingPeer(_ id: String) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { request in
            request.target.hasPrefix("/sync/changes")
                ? .json(["peerID": id, "changes": [], "nextSequence": 0, "hasMore": false])
                : .json(["error": ["code": "not_found", "message": "nothing here"]], status: 404)
        }
    }

    /// The bearer tokens `peer` received.
    static func tokens(_ peer: ScriptedHTTPServer) -> Set<String> {
        Set(peer.requests.map { $0.headers["authorization"] ?? "(none)" })
    }

    static func write(_ text: String, to url: URL) throws -> String {
        try Data((text + "\n").utf8).write(to: url)
        return url.path(percentEncoded: false)
    }

    @Test("two peers with two tokens: each recording peer sees only its own, from serve, sync pull and a peers file; a redirect carries none")
    func eachPeerSeesOnlyItsOwnToken() async throws {
        let directory = try TemporaryDirectory("peer-tokens")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let (one, two) = (try Self.recordingPeer("peer-one"), try Self.recordingPeer("peer-two"))
        // A peer that sends every request on to peer one: its own token must not follow.
        let redirecting = try ScriptedHTTPServer { request in
            ScriptedHTTPServer.Response(status: 302, headers: ["Location": one.url + request.target])
        }
        let fileOne = try Self.write(Self.tokenOne, to: directory.appending("one.token"))
        let fileTwo = try Self.write(Self.tokenTwo, to: directory.appending("two.token"))
        let fileThree = try Self.write(Self.tokenThree, to: directory.appending("three.token"))

        let pulled = try await Attach.run(["sync", "pull", one.url, two.url, "--peer-token-file", "\(one.url)=\(fileOne)",
                                           "--peer-token-file", "\(two.url)=\(fileTwo)"], store: store)
        #expect(pulled.exitCode == 0, "\(pulled.stderr)")
        #expect(Self.tokens(one) == ["Bearer \(Self.tokenOne)"])
        #expect(Self.tokens(two) == ["Bearer \(Self.tokenTwo)"])

        // A peers file, with token files relative to it.
        let peersFile = try Self.write("# url token-file\n\(one.url) one.token\n\(two.url)   two.token  # the second\n\n",
                                       to: directory.appending("peers"))
        let fromFile = try await Attach.run(["sync", "pull", "--peers-file", peersFile], store: store)
        #expect(fromFile.exitCode == 0, "\(fromFile.stderr)")

        // The server, syncing continuously with all three.
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(), [
            "--peer", one.url, "--peer", two.url, "--peer", redirecting.url, "--sync-interval", "0.2",
            "--peer-token-file", "\(one.url)=\(fileOne)", "--peer-token-file", "\(two.url)=\(fileTwo)",
            "--peer-token-file", "\(redirecting.url)=\(fileThree)",
        ])
        defer { server.process.kill() }
        let before = (one.requests.count, two.requests.count)
        try await ServerProcess.eventually(20, "the server to pull from both peers twice") {
            one.requests.count >= before.0 + 2 && two.requests.count >= before.1 + 2 && redirecting.requests.count >= 2
        }
        #expect(Self.tokens(one) == ["Bearer \(Self.tokenOne)"], "peer one saw another peer's token")
        #expect(Self.tokens(two) == ["Bearer \(Self.tokenTwo)"], "peer two saw another peer's token")
        #expect(Self.tokens(redirecting) == ["Bearer \(Self.tokenThree)"])
        for peer in [one, two, redirecting] { peer.stop() }
    }

    @Test("one shared token with two peers is refused by serve, sync pull and fetch, and a token for a URL that is no peer too", arguments: [
        (["serve", "--peer", "http://127.0.0.1:9", "--peer", "http://127.0.0.1:10", "--peer-token", "shared-token-0123456789"], "--peer-token is for one peer"),
        (["sync", "pull", "http://127.0.0.1:9", "http://127.0.0.1:10", "--token", "shared-token-0123456789"], "--token is for one peer"),
        (["fetch", "--all", "--peer", "http://127.0.0.1:9", "--peer", "http://127.0.0.1:10", "--token", "shared-token-0123456789"],
         "--token is for one peer"),
        (["sync", "pull", "http://127.0.0.1:9", "--peer-token-file", "http://127.0.0.1:10=/dev/null"], "is not one of the peers"),
    ])
    func sharedTokenIsRefused(arguments: [String], message: String) async throws {
        let directory = try TemporaryDirectory("shared-token")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let outcome = try await Attach.run(arguments, store: store)
        #expect(outcome.exitCode != 0)
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("serving"))
    }

    @Test("the environment's shared peer token with two peers is refused too")
    func environmentTokenIsRefused() async throws {
        let directory = try TemporaryDirectory("shared-token-env")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let outcome = try await Attach.run(["serve", "--port", "0"], store: store, environment: [
            "ATTACH_PEER": "http://127.0.0.1:9,http://127.0.0.1:10", "ATTACH_PEER_TOKEN": "shared-token-0123456789",
        ])
        #expect(outcome.exitCode != 0)
        #expect(outcome.stderr.contains("--peer-token is for one peer"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("shared-token-0123456789"), "the secret is never echoed")
    }

    /// A fake log line, a screen clear, a window title, a C1 CSI and a right-to-left override.
    static let forgery = "boom\r\n2026-11-27T05:00:00+0000 error attach-serve: [AttachmentServer] FORGED line\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}gpj.exe"

    static func expectQuotedOnly(_ text: String, _ what: String) {
        #expect(!text.contains("\r"), "\(what) carries a raw CR")
        #expect(!text.split(separator: "\n").contains { $0.contains("FORGED") && $0.hasPrefix("2026-11-27T05:00:00") },
                "\(what) carries the forged line as a line of its own")
        for raw in ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}"] { #expect(!text.contains(raw), "\(what) carries \(raw.unicodeScalars.first!.value)") }
        #expect(text.contains("boom\\u{d}\\u{a}2026-11-27T05:00:00+0000 error attach-serve"), "\(what): \(text)")
        #expect(text.contains("\\u{1b}[2J") && text.contains("\\u{9b}31m") && text.contains("\\u{202e}gpj.exe"), "\(what): \(text)")
    }

    @Test("a peer whose error text holds CR/LF, a fake log line and escape sequences reaches sync pull's output and the server log only escaped")
    func peerErrorTextIsQuoted() async throws {
        let directory = try TemporaryDirectory("peer-text")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let json = try ScriptedHTTPServer { _ in .json(["error": ["code": "x", "message": Self.forgery]], status: 500) }
        let plain = try ScriptedHTTPServer { _ in ScriptedHTTPServer.Response(status: 502, body: Data(Self.forgery.utf8)) }
        defer { json.stop(); plain.stop() }

        let pulled = try await Attach.run(["sync", "pull", json.url, plain.url], store: store)
        #expect(pulled.exitCode == 2)
        Self.expectQuotedOnly(pulled.stderr + pulled.stdout, "sync pull's output")

        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(),
                                             ["--peer", json.url, "--peer", plain.url, "--sync-interval", "0.2"])
        try await ServerProcess.eventually(20, "the server to try both peers") { json.requests.count >= 2 && plain.requests.count >= 2 }
        server.process.kill(SIGTERM)
        let log = await server.process.wait().stderr
        #expect(log.contains("sync round failed"), "\(log)")
        Self.expectQuotedOnly(log, "the server log")
    }
}
