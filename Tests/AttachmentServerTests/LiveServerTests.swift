@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing
import TestSupport

/// Tests over real sockets: only what the router tests cannot show (streaming, ranges, shutdown).
@Suite("Live server", .timeLimit(.minutes(3)))
struct LiveServerTests {
    /// Runs the application in its own service group, as `attach serve` does, and hands `body`
    /// the port and a way to shut the server down gracefully; returns when the server has stopped.
    static func serve(
        _ fixture: ServerFixture,
        _ body: @escaping @Sendable (_ port: Int, _ shutdown: @escaping @Sendable () async -> Void) async throws -> Void
    ) async throws {
        var configuration = fixture.configuration
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        configuration.onServerRunning = { port in continuation.yield(port) }
        let application = try await buildApplication(configuration)
        let group = ServiceGroup(configuration: .init(services: [application], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body(port) { await group.triggerGracefulShutdown() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func requestHead(_ method: String, _ path: String, _ headers: [String]) -> Data {
        Data(([ "\(method) \(path) HTTP/1.1", "Host: 127.0.0.1" ] + headers + ["", ""]).joined(separator: "\r\n").utf8)
    }

    @Test("a 16 MB photo streamed in chunks is stored byte for byte")
    func chunkedUploadIsStreamed() async throws {
        let fixture = try ServerFixture()
        let note = try await fixture.store().createNote(title: "big")
        let source = try Corpus.file("special/large-16mb.jpg")
        let data = try Data(contentsOf: source)
        try await Self.serve(fixture) { port, _ in
            let response = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(Self.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=large.jpg",
                                                 ["Content-Type: image/jpeg", "Transfer-Encoding: chunked"]))
                var offset = 0
                while offset < data.count {
                    let end = min(offset + (64 << 10), data.count)
                    try await write(RawHTTPConnection.chunk(data[offset..<end]))
                    offset = end
                }
                try await write(RawHTTPConnection.lastChunk)
                return try await read()
            }
            #expect(response?.status == 201)
        }
        let attachment = try #require(try await fixture.store().attachments(of: note.id).first)
        #expect(attachment.blobHash.rawValue == (try Files.sha256(source)))
        #expect(attachment.byteCount == Int64(data.count))
    }

    @Test("a streamed upload past the limit is cut off with 413 and leaves nothing behind")
    func chunkedUploadOverLimitIsRefused() async throws {
        let fixture = try ServerFixture(maxUploadBytes: 1 << 20)
        let note = try await fixture.store().createNote(title: "limit")
        try await Self.serve(fixture) { port, _ in
            let response = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(Self.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=big.bin",
                                                 ["Content-Type: image/jpeg", "Transfer-Encoding: chunked"]))
                // Send up to 4 MiB; the server answers as soon as it has seen more than 1 MiB.
                for _ in 0..<64 {
                    do { try await write(RawHTTPConnection.chunk(Data(repeating: 0xAB, count: 64 << 10))) } catch { break }
                }
                try? await write(RawHTTPConnection.lastChunk)
                return try await read()
            }
            #expect(response?.status == 413)
        }
        let store = try await fixture.store()
        #expect(try await store.attachments(of: note.id).isEmpty)
        #expect(try await store.statistics().blobs == 0)
        #expect(Files.tree(fixture.configuration.storeDirectory.appending(path: "tmp")).isEmpty)
    }

    @Test("an upload under way when shutdown begins still completes and is stored")
    func shutdownLetsUploadsFinish() async throws {
        let fixture = try ServerFixture()
        let note = try await fixture.store().createNote(title: "shutdown")
        let source = try Corpus.file("special/seed-3.7mb.jpg")
        let data = try Data(contentsOf: source)
        try await Self.serve(fixture) { port, shutdown in
            let response = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(Self.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=seed.jpg",
                                                 ["Content-Type: image/jpeg", "Content-Length: \(data.count)"]))
                try await write(data.prefix(data.count / 2))
                // Under way means the server is writing it: its staged copy is in tmp/. (Shut down
                // before the server has read the request's head, the connection is idle to it and
                // is closed; that is not what this test is about.)
                let staging = fixture.configuration.storeDirectory.appending(path: "tmp")
                let deadline = ContinuousClock.now + .seconds(30)
                while Files.tree(staging).isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                await shutdown()
                try await write(data.suffix(from: data.count / 2))
                return try await read()
            }
            #expect(response?.status == 201)
        }
        let attachments = try await fixture.store().attachments(of: note.id)
        #expect(attachments.map(\.blobHash.rawValue) == [try Files.sha256(source)])
    }

    @Test("an upload cut off by the client stores nothing and leaves no temporary file")
    func abandonedUploadIsCleanedUp() async throws {
        let fixture = try ServerFixture()
        let note = try await fixture.store().createNote(title: "cut")
        let data = try Data(contentsOf: try Corpus.file("special/seed-3.7mb.jpg"))
        try await Self.serve(fixture) { port, _ in
            try await RawHTTPConnection.with(port: port) { write, _ in
                try await write(Self.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=seed.jpg",
                                                 ["Content-Type: image/jpeg", "Content-Length: \(data.count)"]))
                try await write(data.prefix(data.count / 2))
            }
        }
        // The server has stopped, so the handler has finished.
        let store = try await fixture.store()
        #expect(try await store.attachments(of: note.id).isEmpty)
        #expect(Files.tree(fixture.configuration.storeDirectory.appending(path: "tmp")).isEmpty)
    }

    @Test("ranges of a large original are served over a real connection")
    func rangesOverRealSockets() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "range")
        let source = try Corpus.file("special/large-16mb.jpg")
        let attachment = try await store.addAttachment(to: note.id, fromFile: source)
        let data = try Data(contentsOf: source)
        try await fixture.test(.live) { client in
            let whole = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
            #expect(whole.status == .ok)
            #expect(Data(buffer: whole.body) == data)
            let middle = try await client.execute(
                uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.range: "bytes=5000000-5999999"])
            #expect(middle.status == .partialContent)
            #expect(Data(buffer: middle.body) == data[5_000_000...5_999_999])
        }
    }
}
