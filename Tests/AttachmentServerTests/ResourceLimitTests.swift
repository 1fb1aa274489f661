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

/// A blocking loopback socket, for clients that misbehave on purpose (hold connections, never read).
final class BareSocket {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        // A fixed receive window (Linux would grow it to 32 MiB on loopback, enough to swallow a
        // whole photo unread); 256 KiB is still large enough for a fast drain.
        var receiveBuffer: Int32 = 256 << 10
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Bytes received and not yet read.
    var unread: Int {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// Reads until the server closes (or resets) the connection or `limit` bytes; how many arrived.
    func drain(limit: Int = 64 << 20) -> (bytes: Int, closed: Bool) {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while total < limit {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (total, true) }
            if count < 0 { return (total, errno == ECONNRESET) }
            total += count
        }
        return (total, false)
    }
}

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

    @Test("a client that reads nothing of a large answer is cut off after the write timeout")
    func slowReadersAreCutOff() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.responseWriteTimeout = .seconds(1)
        let store = try await fixture.store()
        let note = try await store.createNote(title: "big")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/large-16mb.jpg"))
        try await LiveServerTests.serve(fixture) { port, _ in
            let reader = try BareSocket(port: port)
            reader.send("GET /api/attachments/\(attachment.id)/original HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // Read nothing until the receive window is full, so the server's writes are stuck
            // (on a loaded machine the answer may take a while to start), then a while longer.
            let deadline = ContinuousClock.now + .seconds(60)
            while reader.unread < 128 << 10, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            // The server fills its own send buffer too before it is stuck; give it time on a loaded machine.
            try await Task.sleep(for: .seconds(10))
            let started = ContinuousClock.now
            let (bytes, closed) = reader.drain()
            print("slow reader: drained \(bytes) bytes in \(ContinuousClock.now - started), closed: \(closed)")
            #expect(closed, "the server closed the connection")
            #expect(bytes < Int(attachment.byteCount), "only \(bytes) of \(attachment.byteCount) bytes were sent before the cut")
        }
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
