import Foundation
import Testing
import TestSupport

/// The PostgreSQL server `make test` starts (`ATTACH_TEST_POSTGRES`), and throwaway ones.
enum PostgresService {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var url: String? { environment["ATTACH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 } }
    static var isConfigured: Bool { url != nil && S3Blobs.isConfigured }

    /// A `--catalog` value: the test server's database, in a schema of its own.
    static func catalog(_ label: String, url base: String? = nil) -> String {
        let schema = "cli_\(label)_\(UUID().uuidString.lowercased().prefix(8))"
        return (base ?? url ?? "") + "?schema=" + schema
    }

    /// The repository's `scripts/services/postgres.sh` (or the one `make test` names).
    static var script: String {
        environment["ATTACH_POSTGRES_SERVICE_SCRIPT"]
            ?? Corpus.packageRoot.appending(path: "scripts/services/postgres.sh").path(percentEncoded: false)
    }

    /// Runs `postgres.sh ARGUMENTS`; returns what it printed on standard output.
    @discardableResult
    static func run(_ arguments: [String]) async throws -> String {
        let outcome = try await ChildProcess.run(script, arguments)
        guard outcome.exitCode == 0 else {
            throw ServerProcess.Failed(message: "postgres.sh \(arguments.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Servers on several machines: each with its own local folder, sharing one PostgreSQL catalog
/// and one S3 bucket.
@Suite("Scale-out: PostgreSQL catalog and S3 originals", .timeLimit(.minutes(5)),
       .enabled(if: PostgresService.isConfigured, "needs ATTACH_TEST_POSTGRES and the S3_* variables (make test starts both)"))
struct PostgresScaleOutTests {
    @Test("two servers with separate folders on one PostgreSQL catalog and one bucket: 8 clients lose nothing, verify clean")
    func twoServersOnOneBackend() async throws {
        let directory = try TemporaryDirectory("pg-scale-out")
        let backend = ["--catalog", PostgresService.catalog("two_servers"), "--blobs", S3Blobs.location("pg-two-servers")]
        let folders = [directory.appending("server-a"), directory.appending("server-b")]
        #expect(try await Attach.run(["init"] + backend, store: folders[0]).exitCode == 0)
        let servers = [
            try await ServerProcess(store: folders[0], port: try ServerProcess.freePort(), backend),
            try await ServerProcess(store: folders[1], port: try ServerProcess.freePort(), backend),
        ]
        defer { for server in servers { server.process.kill(SIGKILL) } }
        let note = try #require(try await ConcurrentWritersTests.createNote("two machines", on: servers[0]))
        let photos = try Corpus.files(in: "fifty").prefix(12).map { (name: $0.lastPathComponent, data: try Data(contentsOf: $0)) }

        let deadline = ContinuousClock.now + .seconds(ScaleOutTests.seconds)
        async let collections = ScaleOutTests.collectGarbageUntil(deadline, store: folders[1], backend: backend)
        let uploads = try await ScaleOutTests.uploadUntil(deadline, photos: photos, to: note, on: servers)
        let gcRuns = try await collections
        #expect(uploads.count >= ScaleOutTests.clients)

        // Each upload reads back from both servers; the other server has no local copy, so its
        // bytes come from the bucket.
        for (id, hash) in uploads {
            for server in servers {
                let (status, body) = try await server.get("/api/attachments/\(id)/original")
                #expect(status == 200 && HTTP.sha256(body) == hash, "\(id) from \(server.url): \(status)")
            }
        }
        let listed = try await servers[1].json("/api/notes/\(note)/attachments")["attachments"] as? [Any]
        #expect(listed?.count == uploads.count, "the note holds every acknowledged upload and nothing else")
        for server in servers { await server.stop() }
        let verify = try await Attach.run(["verify"] + backend, store: folders[1])
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        print("postgres scale-out figures: 2 servers (separate folders), \(ScaleOutTests.clients) clients, \(ScaleOutTests.seconds) s: "
              + "\(uploads.count) uploads acknowledged, all read back byte-identical from both; \(gcRuns) gc --grace 0 runs; "
              + "verify exit \(verify.exitCode.map(String.init) ?? "signal")")
        print("soak figures: test=postgres-scale-out servers=2 clients=\(ScaleOutTests.clients) seconds=\(ScaleOutTests.seconds) "
              + "uploads=\(uploads.count) gc-runs=\(gcRuns) verify-exit=\(verify.exitCode.map(String.init) ?? "signal")")
    }

    @Test("PostgreSQL restarted under a running server: requests answer 503 while it is down and work again after, no restart")
    func postgresRestartIsSurvived() async throws {
        // A PostgreSQL of this test's own, so restarting it disturbs no other test.
        let directory = try TemporaryDirectory("pg-restart")
        let state = directory.appending("pg")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path(percentEncoded: false))
        let port = String(try ServerProcess.freePort())
        let statePath = state.path(percentEncoded: false)
        let url = try await PostgresService.run(["start", statePath, port])
        do {
            try await Self.restartScenario(url: url, statePath: statePath, port: port, directory: directory)
        } catch {
            _ = try? await PostgresService.run(["destroy", statePath])
            throw error
        }
        _ = try? await PostgresService.run(["destroy", statePath])
    }

    /// The restart test once its PostgreSQL runs.
    static func restartScenario(url: String, statePath: String, port: String, directory: TemporaryDirectory) async throws {
        let backend = ["--catalog", PostgresService.catalog("restart", url: url), "--blobs", S3Blobs.location("pg-restart")]
        let folder = directory.appending("server")
        #expect(try await Attach.run(["init"] + backend, store: folder).exitCode == 0)
        let server = try await ServerProcess(store: folder, port: try ServerProcess.freePort(), backend)
        defer { server.process.kill(SIGKILL) }
        let note = try #require(try await ConcurrentWritersTests.createNote("before", on: server))
        let photo = try Data(contentsOf: Corpus.file("good/Dune.jpg"))
        let before = try await ConcurrentWritersTests.upload([(name: "dune.jpg", data: photo)], count: 1, to: note, on: server)

        try await PostgresService.run(["stop", statePath])
        let (listStatus, listBody) = try await server.get("/api/notes")
        #expect(listStatus == 503, "GET /api/notes with PostgreSQL down answered \(listStatus)")
        #expect(HTTP.errorCode(listBody) == "catalog_unavailable")
        let (uploadStatus, uploadBody) = try await HTTP.send("POST", "\(server.url)/api/notes/\(note)/attachments?filename=x.jpg",
                                                             body: photo, contentType: "image/jpeg")
        #expect(uploadStatus == 503, "an upload with PostgreSQL down answered \(uploadStatus)")
        #expect(HTTP.errorCode(uploadBody) == "catalog_unavailable")
        #expect(Files.tree(folder.appending(path: "tmp")).isEmpty, "the refused upload left no staged copy")

        _ = try await PostgresService.run(["start", statePath, port])
        try await ServerProcess.eventually(30, "the server to reach PostgreSQL again") {
            try await server.get("/api/notes").status == 200
        }
        let after = try await ConcurrentWritersTests.upload([(name: "dune.jpg", data: photo)], count: 1, to: note, on: server)
        let listed = try await server.json("/api/notes/\(note)/attachments")["attachments"] as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["id"] as? String } ?? []) == Set((before + after).map(\.id)))
        await server.stop()
        #expect(try await Attach.run(["verify"] + backend, store: folder).exitCode == 0)
    }
}
