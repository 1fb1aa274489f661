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

@Suite("Resource limits", .timeLimit(.minutes(4)))
struct ResourceLimitTests {
    @Test("connections beyond the limit are closed as they arrive; one frees a place")
    func connectionsAreCapped() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.maxConnections = 2
        try await LiveServerTests.serve(fixture) { port, _ in
            // Which of three simultaneous connections is the one too many is up to the event
            // loops; exactly one must be closed unanswered.
            do {
                let sockets = [try BareSocket(port: port), try BareSocket(port: port), try BareSocket(port: port)]
                try await Task.sleep(for: .milliseconds(300))
                for socket in sockets { socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") }
                var results: [(bytes: Int, closed: Bool)] = []
                for socket in sockets { results.append(await socket.drained()) }
                #expect(results.filter { $0.bytes > 0 }.count == 2, "\(results)")
                #expect(results.filter { $0.bytes == 0 && $0.closed }.count == 1, "one connection was closed unanswered: \(results)")
            }
            // The clients have closed those connections (the sockets are gone): a new one finds a
            // place once the server has seen them close, which in the full parallel suite can take
            // seconds; it is given 30.
            var answered = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !answered, ContinuousClock.now < deadline {
                let later = try BareSocket(port: port)
                later.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                answered = await later.drained().bytes > 0
                if !answered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answered, "a closed connection frees its place")
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
            // Wait until the server is receiving it (on a loaded machine that takes a moment).
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let metrics = try await RawHTTPConnection.with(port: port) { write, read in
                    try await write(LiveServerTests.requestHead("GET", "/metrics", ["Connection: close"]))
                    return try await read()
                }
                if String(decoding: metrics?.body ?? Data(), as: UTF8.self).contains("attach_uploads_in_progress 1") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
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
