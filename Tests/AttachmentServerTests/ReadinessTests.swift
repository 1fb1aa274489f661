@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TestSupport

/// An object store that works until the test takes it down: then each lookup fails at once, or
/// hangs (a bucket behind a dead network path answers nothing).
final class SwitchableObjectStore: BlobObjectStore {
    enum Condition { case up, failing, hanging }
    let base: DirectoryBlobObjectStore
    // Set by the test, read by the server's requests.
    private let condition = Mutex(Condition.up)
    /// How many lookups (`size(of:)`) were asked.
    let lookups = Atomic<Int>(0)

    init(directory: URL) { base = DirectoryBlobObjectStore(directory: directory) }

    func set(_ new: Condition) { condition.withLock { $0 = new } }

    private func check() async throws {
        switch condition.withLock({ $0 }) {
        case .up: return
        case .failing: throw BlobObjectStoreError.unavailable(operation: "HEAD", location: "s3://photos at http://10.0.0.7:9000", cause: .init(StubFailure("connection refused")))
        case .hanging: try await Task.sleep(for: .seconds(120))
        }
    }

    var location: String { base.location }
    func upload(fileAt path: String, as hash: BlobHash, byteCount: Int64) async throws {
        try await check()
        try await base.upload(fileAt: path, as: hash, byteCount: byteCount)
    }
    func download(_ hash: BlobHash, toFile path: String) async throws {
        try await check()
        try await base.download(hash, toFile: path)
    }
    func size(of hash: BlobHash) async throws -> Int64? {
        lookups.add(1, ordering: .relaxed)
        try await check()
        return try await base.size(of: hash)
    }
    func delete(_ hash: BlobHash) async throws {
        try await check()
        try await base.delete(hash)
    }
    func objects() -> AsyncThrowingStream<BlobObject, any Swift.Error> { base.objects() }
}

@Suite("Liveness and readiness for load balancers", .timeLimit(.minutes(2)))
struct ReadinessTests {
    @Test("/health/live and /health/ready answer ok without credentials on a server that has a token")
    func healthRoutesAnswerWithoutCredentials() async throws {
        try await ServerFixture(token: "a-token-of-sixteen-bytes").test { client in
            for path in ["/health", "/health/live", "/health/ready"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path)")
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#, "\(path)")
            }
        }
    }

    @Test("a draining server is not ready (503 draining) but still alive")
    func drainingServerIsNotReady() async throws {
        let fixture = try ServerFixture()
        let readiness = ServerReadiness()
        let app = try await buildApplication(fixture.configuration, readiness: readiness)
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/health/ready", method: .get).status == .ok)
            readiness.beginDraining()
            for path in ["/health/ready", "/health"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .serviceUnavailable, "\(path)")
                #expect(JSON.errorCode(response) == "draining")
            }
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/api/notes", method: .get).status == .ok, "requests still get served while draining")
        }
    }

    @Test("with the object store down, ready is 503 naming no address, and live stays 200", arguments: [false, true])
    func objectStoreDownMakesServerUnready(hangs: Bool) async throws {
        var fixture = try ServerFixture()
        let objects = SwitchableObjectStore(directory: fixture.directory.appending("objects"))
        fixture.configuration.objectStore = objects
        try await fixture.test { client in
            #expect(try await client.execute(uri: "/health/ready", method: .get).status == .ok)
            objects.set(hangs ? .hanging : .failing)
            try await Task.sleep(for: .milliseconds(1100))  // past the shared answer's second
            let started = ContinuousClock.now
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(JSON.errorCode(response) == "unhealthy")
            let body = String(buffer: response.body)
            #expect(!body.contains("10.0.0.7") && !body.contains("objects") && !body.contains("9000"), "the public answer names nothing inside: \(body)")
            if hangs { #expect(ContinuousClock.now - started < .seconds(20), "a hanging object store is down after the check's limit, not never") }
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
            objects.set(.up)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.execute(uri: "/health/ready", method: .get).status == .ok, "ready again once the object store answers")
        }
    }

    @Test("a store whose staging folder is gone is not ready, and ready again once it is back")
    func missingStagingFolderIsNotReady() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let tmp = fixture.configuration.storeDirectory.appending(path: "tmp").path(percentEncoded: false)
            // A lost mount or a wiped folder: tmp/ now leads nowhere (a permission test would prove
            // nothing when the tests run as root).
            try FileManager.default.moveItem(atPath: tmp, toPath: tmp + ".away")
            try FileManager.default.createSymbolicLink(atPath: tmp, withDestinationPath: "/nonexistent/attach-tmp")
            try await Task.sleep(for: .milliseconds(1100))
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(!String(buffer: response.body).contains("attach-tmp"))
            try FileManager.default.removeItem(atPath: tmp)
            try FileManager.default.moveItem(atPath: tmp + ".away", toPath: tmp)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.execute(uri: "/health/ready", method: .get).status == .ok)
        }
    }

    @Test("a flood of readiness probes checks the store once a second, one check at a time")
    func probeFloodIsCoalesced() async throws {
        var fixture = try ServerFixture()
        let objects = SwitchableObjectStore(directory: fixture.directory.appending("objects"))
        fixture.configuration.objectStore = objects
        try await fixture.test(.live) { client in
            let before = objects.lookups.load(ordering: .relaxed)
            let started = ContinuousClock.now
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<200 { group.addTask { try await client.execute(uri: "/health/ready", method: .get).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
            #expect(statuses.allSatisfy { $0 == .ok })
            let asked = objects.lookups.load(ordering: .relaxed) - before
            #expect(asked >= 1 && asked <= seconds + 1, "200 probes in about \(seconds) s asked the object store \(asked) times")
        }
    }
}
