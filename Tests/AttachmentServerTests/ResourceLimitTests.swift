@testable import AttachmentServer
import AttachmentStore
import Foundation
import NIOCore
import NIOEmbedded
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("Resource limits", .timeLimit(.minutes(2)))
struct ResourceLimitTests {
    @Test("connections beyond the limit are closed as they arrive; one frees a place")
    func connectionsAreCapped() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.maxConnections = 2
        try await LiveServerTests.serve(fixture) { port, _ in
            let held = [try BareSocket(port: port), try BareSocket(port: port)]
            try await Task.sleep(for: .milliseconds(200))
            let refused = try BareSocket(port: port)
            refused.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = refused.drain()
            #expect(answer.closed && answer.bytes == 0, "the third connection was closed unanswered")
            held[0].send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(held[0].drain().bytes > 0, "the held connections are served")
            _ = held
        }
    }

    @Test("an upload beyond the concurrent-upload limit is answered 503 with Retry-After and stores nothing")
    func uploadsAreCapped() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.maxConcurrentUploads = 1
        let note = try await fixture.store().createNote(title: "busy")
        try await LiveServerTests.serve(fixture) { port, _ in
            // The first upload holds the only slot: its body is still coming.
            let first = try BareSocket(port: port)
            first.send("POST /api/notes/\(note.id)/attachments?filename=a.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       + "Content-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 1000))
            try await Task.sleep(for: .milliseconds(300))
            let second = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=b.jpg",
                                                            ["Content-Type: image/jpeg", "Content-Length: 4"]) + Data("abcd".utf8))
                return try await read()
            }
            #expect(second?.status == 503)
            #expect(second?.headers["retry-after"] == "5")
            let body = String(decoding: second?.body ?? Data(), as: UTF8.self)
            #expect(body.contains("too_many_uploads"))
            _ = first
        }
        #expect(try await fixture.store().attachments(of: note.id).isEmpty)
    }

    @Test("the write deadline starts when the connection stops being writable and closes it after the timeout")
    func writeDeadlineClosesAStuckConnection() throws {
        let channel = EmbeddedChannel()
        let loop = channel.embeddedEventLoop
        try channel.pipeline.syncOperations.addHandler(SlowClientHandler(headTimeout: .seconds(3600), writeTimeout: .seconds(5)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive, "not yet")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "a client that reads again resets the deadline")
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive, "closed after 5 s without the client reading")
    }
}
