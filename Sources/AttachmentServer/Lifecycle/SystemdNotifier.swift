import Glibc

/// Tells systemd how the service is doing (`Type=notify` units): `READY=1` once the server
/// listens, `STOPPING=1` when it begins to drain, `STATUS=…` for `systemctl status`.
///
/// Speaks the protocol of `sd_notify(3)` itself (one datagram to the Unix socket named by
/// `$NOTIFY_SOCKET`; a leading `@` names an abstract socket), so the binary needs no libsystemd.
/// Without `$NOTIFY_SOCKET` (not started by systemd) every call does nothing.
enum SystemdNotifier {
    /// Sends `state` (lines of `KEY=value`). Never blocks and never fails the caller: a lost
    /// notification only makes systemd wait for its start timeout, which it reports itself.
    static func notify(_ state: String) {
        guard let path = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !path.isEmpty else { return }
        send(state, to: path)
    }

    /// Sends `state` to the socket at `path` (`@name` for an abstract one). Returns whether the
    /// datagram was sent whole.
    @discardableResult
    static func send(_ state: String, to path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var name = Array(path.utf8)
        let abstract = name.first == UInt8(ascii: "@")
        if abstract { name[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path must leave room for its terminating zero; an abstract name needs none.
        guard name.count < capacity || (abstract && name.count <= capacity) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (abstract ? 0 : 1))

        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress, length)
            }
        }
        return sent == bytes.count
    }
}
