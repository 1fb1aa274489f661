import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking loopback socket, for clients that misbehave on purpose (hold connections, never read).
public final class BareSocket {
    /// The socket's descriptor.
    public let fd: Int32

    /// Connects to `127.0.0.1:port` (from `source`, another loopback address such as
    /// `127.0.0.2`, when given), with a fixed 256 KiB receive window and a 60 s read timeout (a
    /// loaded machine may take seconds to answer).
    public init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        }
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
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// `count` sockets connected from `source` (see ``init(port:from:)``), made on a thread of
    /// their own. A connect waits for the server to accept; on a loaded machine a full accept
    /// queue makes the kernel retry the handshake for seconds, and many connects in a row on
    /// Swift's cooperative pool (one thread per core) would hold the threads every other test
    /// in the process needs.
    public static func connecting(_ count: Int, port: Int, from source: String? = nil) async throws -> [BareSocket] {
        let made: UncheckedSocket = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: UncheckedSocket(sockets: try (0..<count).map { _ in try BareSocket(port: port, from: source) }))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return made.sockets
    }

    /// Sends `text` (no error when the peer has gone).
    public func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends all of `bytes`, on a thread of its own (a send waits while the server does not read,
    /// which must not hold one of the cooperative pool's threads); whether they all went.
    @discardableResult
    public func send(_ bytes: Data) async -> Bool {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let sent = bytes.withUnsafeBytes { buffer -> Bool in
                    var offset = 0
                    while offset < buffer.count {
                        let count = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                        guard count > 0 else { return false }
                        offset += count
                    }
                    return true
                }
                continuation.resume(returning: sent)
            }
        }
    }

    /// Bytes received and not yet read.
    public var unread: Int {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// ``drain(limit:)`` on a thread of its own: a blocking read on Swift's cooperative pool
    /// could hold the very thread the server needs to answer (the pool has one per core).
    public func drained(limit: Int = 64 << 20) async -> (bytes: Int, closed: Bool) {
        await withCheckedContinuation { continuation in
            let socket = UncheckedSocket(socket: self)
            Thread.detachNewThread { continuation.resume(returning: socket.socket.drain(limit: limit)) }
        }
    }

    /// The bytes that arrive until the server closes (or resets) the connection, or `limit`
    /// bytes, read on a thread of its own as ``drained(limit:)`` is.
    public func received(limit: Int = 64 << 20) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            let socket = UncheckedSocket(socket: self)
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                _ = socket.socket.drain(limit: limit) { bytes.append(contentsOf: $0) }
                continuation.resume(returning: bytes)
            }
        }
    }

    /// Reads until the server closes (or resets) the connection or `limit` bytes; how many arrived.
    /// Each read's bytes go to `keep`, when given.
    public func drain(limit: Int = 64 << 20, keep: ((UnsafeRawBufferPointer) -> Void)? = nil) -> (bytes: Int, closed: Bool) {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while total < limit {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (total, true) }
            if count < 0 { return (total, errno == ECONNRESET) }
            buffer.withUnsafeBytes { keep?(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            total += count
        }
        return (total, false)
    }
}

/// Hands ``BareSocket``s between a caller and the one thread that drains or connects them.
// @unchecked Sendable: the sockets are used by that thread alone while the caller awaits it (and
// by the caller alone before and after), so no two threads touch them at once.
private struct UncheckedSocket: @unchecked Sendable {
    let sockets: [BareSocket]
    var socket: BareSocket { sockets[0] }
    init(socket: BareSocket) { sockets = [socket] }
    init(sockets: [BareSocket]) { self.sockets = sockets }
}
