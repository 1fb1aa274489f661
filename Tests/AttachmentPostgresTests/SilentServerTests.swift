import CatalogSQL
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
@testable import AttachmentPostgres
import Testing

/// A "PostgreSQL" that accepts connections and never says a word: the kernel completes each
/// TCP handshake for the listening socket's backlog, and nothing ever answers the startup
/// message.
final class SilentServer {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}

@Suite("a PostgreSQL that never answers", .timeLimit(.minutes(3)))
struct SilentServerTests {
    @Test("connecting to a server that accepts and never answers fails .unavailable instead of hanging")
    func silentServer() async throws {
        let server = try SilentServer()
        let error = await databaseError {
            _ = try await PostgresCatalogDatabase.connect(url: "postgres://attach:x@127.0.0.1:\(server.port)/attach",
                                                          logger: Logger(label: "test"))
        }
        #expect(error?.kind == .unavailable, "\(String(describing: error))")
        withExtendedLifetime(server) {}
    }
}
