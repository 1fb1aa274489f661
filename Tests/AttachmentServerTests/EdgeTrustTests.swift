@testable import AttachmentServer
@testable import AttachmentStore
import CatalogSQL
import Foundation
import Synchronization
import Testing
import TestSupport

/// What the HTTP edge tells caches, hosts and anyone asking `/health`, on a live server.
@Suite("Trust at the HTTP edge", .timeLimit(.minutes(2)))
struct EdgeTrustTests {
    static let token = "edge-trust-token-0123"
    static let bearer = "Authorization: Bearer \(token)"

    @Test("originals, blobs and thumbnails (routed and early) are Cache-Control private, never public")
    func storeContentIsPrivate() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let store = try await fixture.store()
        let note = try await store.createNote(title: "private")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        let hash = attachment.blobHash.rawValue
        let thumbnail = "/api/attachments/\(attachment.id)/thumbnail?v=\(hash)&size=200"
        try await LiveServerTests.serve(fixture) { port, _ in
            let targets = ["/api/attachments/\(attachment.id)/original?v=\(hash)", "/blobs/sha256/\(hash)",
                           thumbnail /* routed: rendered, then cached */, thumbnail /* early, from the cache */]
            var answers: [RawHTTPConnection.Response] = []
            for target in targets {
                let response = try await EarlyAnswerLiveTests.get(target, port: port, [Self.bearer])
                #expect(response.status == 200, "\(target)")
                #expect(response.headers["cache-control"] == "private, max-age=31536000, immutable", "\(target)")
                answers.append(response)
            }
            let metrics = String(decoding: try await EarlyAnswerLiveTests.get("/metrics", port: port, [Self.bearer]).body, as: UTF8.self)
            #expect(metrics.contains("attach_thumbnail_early_answers_total 1"), "the last thumbnail was answered early")
            #expect(EarlyAnswerLiveTests.comparable(answers[2]) == EarlyAnswerLiveTests.comparable(answers[3]))
        }
    }

    @Test("two Host headers, or a target naming another host than Host, are refused with 400 host_repeated")
    func repeatedHostIsRefused() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let store = try await fixture.store()
        let note = try await store.createNote(title: "hosts")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        let thumbnail = "/api/attachments/\(attachment.id)/thumbnail?v=\(attachment.blobHash.rawValue)&size=200"
        try await LiveServerTests.serve(fixture) { port, _ in
            _ = try await EarlyAnswerLiveTests.get(thumbnail, port: port, [Self.bearer])  // cached: could be answered early
            let refused: [(String, [String])] = [
                ("GET /health HTTP/1.1", ["Host: 127.0.0.1", "Host: evil.example"]),
                ("GET /health HTTP/1.1", ["Host: evil.example", "Host: 127.0.0.1"]),
                ("GET /health HTTP/1.1", ["Host: 127.0.0.1", "Host: 127.0.0.1"]),
                ("GET http://evil.example/health HTTP/1.1", ["Host: 127.0.0.1"]),
                ("GET \(thumbnail) HTTP/1.1", ["Host: 127.0.0.1", "Host: evil.example", Self.bearer]),
                ("GET http://evil.example\(thumbnail) HTTP/1.1", ["Host: 127.0.0.1", Self.bearer]),
            ]
            for (line, headers) in refused {
                let response = try await HostAllowListTests.send(port, line, headers)
                #expect(response.status == 400, "\(line) \(headers)")
                #expect(HostAllowListTests.errorCode(response) == "host_repeated", "\(line) \(headers)")
            }
            // One host, however it is named, is still answered.
            #expect(try await HostAllowListTests.send(port, "GET /health HTTP/1.1", ["Host: 127.0.0.1"]).status == 200)
            #expect(try await HostAllowListTests.send(port, "GET http://127.0.0.1/health HTTP/1.1", ["Host: 127.0.0.1"]).status == 200)
            #expect(try await HostAllowListTests.send(port, "GET \(thumbnail) HTTP/1.1", ["Host: 127.0.0.1", Self.bearer]).status == 200)
        }
    }

    @Test("a failing catalog makes /health 503 with a generic reason; the database address is only in the log")
    func healthNamesNoAddress() async throws {
        let capture = LogCapture()
        let directory = try TemporaryDirectory("health")
        let catalog = FailingCatalog(try SQLiteCatalogDatabase(path: directory.appending("catalog.sqlite").path(percentEncoded: false),
                                                               busyTimeout: 5))
        var fixture = try ServerFixture()
        fixture.configuration.catalogDatabase = catalog
        fixture.configuration.logger = capture.logger(level: .error)
        try await LiveServerTests.serve(fixture) { port, _ in
            #expect(try await HostAllowListTests.send(port, "GET /health HTTP/1.1", ["Host: 127.0.0.1"]).status == 200)
            catalog.fails(true)
            try await Task.sleep(for: .milliseconds(1100))  // past the readiness answer all probes share for a second
            let response = try await HostAllowListTests.send(port, "GET /health HTTP/1.1", ["Host: 127.0.0.1"])
            #expect(response.status == 503)
            #expect(HostAllowListTests.errorCode(response) == "unhealthy")
            let text = String(decoding: response.body, as: UTF8.self)
            for detail in [FailingCatalog.host, "5432", "postgres://", "10.20.30.40"] {
                #expect(!text.contains(detail), "the answer names \(detail): \(text)")
            }
            let logged = capture.records("health check failed")
            #expect(logged.first?.metadata["error"]?.contains(FailingCatalog.host) == true, "the log keeps the detail")
        }
    }
}

/// A catalog that works until told to fail, and then fails as an unreachable PostgreSQL server
/// does: with an error naming its address.
final class FailingCatalog: SQLDatabase {
    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "connection to postgres://attach@\(FailingCatalog.host):5432/attach (10.20.30.40) refused" }
    }

    static let host = "catalog-db.internal.example"
    private let base: any SQLDatabase
    private let failing = Atomic<Bool>(false)

    init(_ base: any SQLDatabase) { self.base = base }

    func fails(_ value: Bool) { failing.store(value, ordering: .relaxed) }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        if failing.load(ordering: .relaxed) { throw Unreachable() }
        return try await base.write(body)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        if failing.load(ordering: .relaxed) { throw Unreachable() }
        return try await base.read(body)
    }

    func integrityProblems() async throws -> [String] { try await base.integrityProblems() }
}
