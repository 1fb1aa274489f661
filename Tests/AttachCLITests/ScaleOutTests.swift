import Foundation
import Testing
import TestSupport

/// The S3 bucket of the `S3_*` variables, as a `--blobs` value under a prefix of its own.
enum S3Blobs {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var isConfigured: Bool { !(environment["S3_ENDPOINT"] ?? "").isEmpty && !(environment["S3_BUCKET"] ?? "").isEmpty }

    /// `s3://BUCKET/PREFIX?endpoint=…`, through `endpoint` when given (a relay in front of S3).
    static func location(_ label: String, endpoint: String? = nil) -> String {
        let prefix = "cli-tests/\(label)-\(UUID().uuidString.lowercased().prefix(8))"
        return "s3://\(environment["S3_BUCKET"] ?? "")/\(prefix)?endpoint=\(endpoint ?? environment["S3_ENDPOINT"] ?? "")"
    }

    /// The port of `S3_ENDPOINT`.
    static var port: Int { URLComponents(string: environment["S3_ENDPOINT"] ?? "")?.port ?? 0 }
}

/// Several `attach serve` processes on one backend: one catalog and one S3 bucket.
@Suite("Scale-out: servers sharing an S3 bucket", .timeLimit(.minutes(4)),
       .enabled(if: S3Blobs.isConfigured, "needs the S3_* variables of a running S3 server (make test starts one)"))
struct ScaleOutTests {
    /// How long the clients upload: `ATTACH_SCALE_SECONDS`, default 10 (60 in `make soak`).
    static var seconds: Int { Int(ProcessInfo.processInfo.environment["ATTACH_SCALE_SECONDS"] ?? "") ?? 10 }
    /// Clients uploading at once, half to each server.
    static let clients = 8

    @Test("two servers on one backend, 8 clients uploading to both while gc runs: nothing lost, verify clean")
    func twoServersLoseNothing() async throws {
        let directory = try TemporaryDirectory("scale-out")
        let store = directory.appending("store")
        let blobs = S3Blobs.location("two-servers")
        #expect(try await Attach.run(["init", "--blobs", blobs], store: store).exitCode == 0)
        let servers = [
            try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--blobs", blobs]),
            try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--blobs", blobs]),
        ]
        defer { for server in servers { server.process.kill(SIGKILL) } }
        let note = try #require(try await ConcurrentWritersTests.createNote("both servers", on: servers[0]))
        let photos = try Corpus.files(in: "fifty").prefix(12).map { (name: $0.lastPathComponent, data: try Data(contentsOf: $0)) }

        let deadline = ContinuousClock.now + .seconds(Self.seconds)
        async let collections = Self.collectGarbageUntil(deadline, store: store, backend: ["--blobs", blobs])
        let uploads = try await Self.uploadUntil(deadline, photos: photos, to: note, on: servers)
        let gcRuns = try await collections
        #expect(uploads.count >= Self.clients, "every client got uploads through")

        // Read back through the bucket: drop the servers' local copies first.
        try? FileManager.default.removeItem(at: store.appending(path: "cache/blobs"))
        for (index, (id, hash)) in uploads.enumerated() {
            for server in [servers[index % 2], servers[(index + 1) % 2]] {
                let (status, body) = try await server.get("/api/attachments/\(id)/original")
                #expect(status == 200 && HTTP.sha256(body) == hash, "\(id) from \(server.url): \(status)")
            }
        }
        let listed = try await servers[1].json("/api/notes/\(note)/attachments")["attachments"] as? [Any]
        #expect(listed?.count == uploads.count, "the note holds every acknowledged upload and nothing else")
        for server in servers { await server.stop() }
        let verify = try await Attach.run(["verify", "--blobs", blobs], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        print("scale-out figures: 2 servers, \(Self.clients) clients, \(Self.seconds) s: \(uploads.count) uploads acknowledged, "
              + "all read back byte-identical from both servers; \(gcRuns) gc --grace 0 runs meanwhile; verify exit \(verify.exitCode.map(String.init) ?? "signal")")
        print("soak figures: test=scale-out servers=2 clients=\(Self.clients) seconds=\(Self.seconds) uploads=\(uploads.count) "
              + "gc-runs=\(gcRuns) verify-exit=\(verify.exitCode.map(String.init) ?? "signal")")
    }

    @Test("the S3 server gone mid-upload: a clear 503, no record of the photo, and the store works again when S3 returns")
    func objectStoreLostMidUpload() async throws {
        let directory = try TemporaryDirectory("s3-cut")
        let store = directory.appending("store")
        let relayPort = try ServerProcess.freePort()
        let blobs = S3Blobs.location("cut", endpoint: "http://127.0.0.1:\(relayPort)")
        // A slow link (2 MB/s towards S3), so the 16 MB upload to S3 is still going when it is cut.
        var relay = try await Self.startRelay(port: relayPort, bytesPerSecond: 2_000_000)
        #expect(try await Attach.run(["init", "--blobs", blobs], store: store).exitCode == 0)
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--blobs", blobs])
        defer { server.process.kill(SIGKILL); relay.kill(SIGKILL) }
        let note = try #require(try await ConcurrentWritersTests.createNote("cut", on: server))
        let photo = try Data(contentsOf: Corpus.file("special/large-16mb.jpg"))

        async let answer = HTTP.send("POST", "\(server.url)/api/notes/\(note)/attachments?filename=large.jpg",
                                     body: photo, contentType: "image/jpeg")
        try await Task.sleep(for: .seconds(2))
        relay.kill(SIGKILL)
        _ = await relay.wait()
        let (status, body) = try await answer
        #expect(status == 503, "answered \(status): \(String(decoding: body, as: UTF8.self))")
        #expect(HTTP.errorCode(body) == "blob_storage_unavailable")
        #expect(HTTP.errorMessage(body)?.contains("nothing was stored") == true)
        let listed = try await server.json("/api/notes/\(note)/attachments")["attachments"] as? [Any]
        #expect(listed?.isEmpty == true, "no record of the photo")

        // S3 is back: the store is consistent, gc clears what the cut left, and uploads work.
        relay = try await Self.startRelay(port: relayPort, bytesPerSecond: 0)
        let verify = try await Attach.run(["verify", "--blobs", blobs], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        let gc = try await Attach.run(["gc", "--grace", "0", "--blobs", blobs], store: store)
        #expect(gc.exitCode == 0, "\(gc.stderr)")
        #expect(Files.tree(store.appending(path: "tmp")).isEmpty, "no staged copy is left")
        let retried = try await ConcurrentWritersTests.upload([(name: "large.jpg", data: photo)], count: 1, to: note, on: server)
        let (readStatus, readBody) = try await server.get("/api/attachments/\(try #require(retried.first).id)/original")
        #expect(readStatus == 200 && HTTP.sha256(readBody) == retried.first?.hash)
        await server.stop()
        #expect(try await Attach.run(["verify", "--blobs", blobs], store: store).exitCode == 0)
    }

    /// ``clients`` clients, spread over `servers`, each uploading photos one after another until
    /// `deadline`; returns every acknowledged upload with the hash of the bytes sent.
    static func uploadUntil(_ deadline: ContinuousClock.Instant, photos: [(name: String, data: Data)], to note: String,
                            on servers: [ServerProcess]) async throws -> [(id: String, hash: String)] {
        try await withThrowingTaskGroup(of: [(id: String, hash: String)].self) { group in
            for client in 0..<clients {
                let server = servers[client % servers.count]
                group.addTask {
                    var acknowledged: [(id: String, hash: String)] = []
                    while ContinuousClock.now < deadline {
                        acknowledged += try await ConcurrentWritersTests.upload(photos, count: 1, to: note, on: server)
                    }
                    return acknowledged
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// Runs `attach gc --grace 0 BACKEND…` on `store` again and again until `deadline`; returns
    /// how many runs passed.
    static func collectGarbageUntil(_ deadline: ContinuousClock.Instant, store: URL, backend: [String]) async throws -> Int {
        var runs = 0
        while ContinuousClock.now < deadline {
            let outcome = try await Attach.run(["gc", "--grace", "0"] + backend, store: store)
            #expect(outcome.exitCode == 0, "gc: \(outcome.stderr)")
            runs += 1
            try await Task.sleep(for: .milliseconds(300))
        }
        return runs
    }

    /// Starts `Tests/Tools/tcp-relay.py` from `port` to the S3 server.
    static func startRelay(port: Int, bytesPerSecond: Int) async throws -> ChildProcess {
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Tools/tcp-relay.py").path(percentEncoded: false)
        let relay = try ChildProcess("/usr/bin/env", ["python3", script, String(port), String(S3Blobs.port), String(bytesPerSecond)])
        try await ServerProcess.eventually(10, "the relay to listen") { relay.stdoutSoFar.contains("ready") }
        return relay
    }
}
