import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for servers a test starts.
public enum LoopbackPort {
    /// Thrown when the kernel hands out no port.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String { "no free loopback port" }
    }

    /// Ports below the kernel's ephemeral range (32768 and up on Linux), so that no outgoing
    /// connection of a test running meanwhile can take one between the moment it is handed out
    /// and the moment a server binds it, as a port the kernel picks for port 0 can be.
    static let range = 20_000..<32_768

    /// The ports handed out in this process, never handed out twice.
    private static let handedOut = Mutex<Set<Int>>([])

    /// A loopback TCP port nothing listens on now, not handed out before in this process.
    public static func free() throws -> Int {
        for _ in 0..<500 {
            let port = Int.random(in: range)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if isBindable(port) { return port }
        }
        throw Unavailable()
    }

    /// Whether a socket can bind `port` on 127.0.0.1 now.
    private static func isBindable(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
