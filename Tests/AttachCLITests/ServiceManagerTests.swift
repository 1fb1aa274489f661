import Foundation
import Glibc
import Testing
import TestSupport

/// A Unix datagram socket in a test's folder, standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifySocket: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw ServerProcess.Failed(message: "cannot bind \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// The next datagram that arrives within `seconds`, as text; `nil` when none does.
    func next(within seconds: Int) async -> String? {
        let descriptor = self.descriptor
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                for _ in 0..<seconds {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count > 0 { return continuation.resume(returning: String(decoding: buffer[..<count], as: UTF8.self)) }
                }
                continuation.resume(returning: nil)
            }
        }
    }
}

@Suite("attach serve under a service manager and a load balancer", .timeLimit(.minutes(3)))
struct ServiceManagerTests {
    @Test("under systemd it reports READY=1 once it listens; on SIGTERM it reports STOPPING=1, answers /health/ready 503 for --drain-delay, then exits 0")
    func notifiesSystemdAndDrains() async throws {
        let directory = try TemporaryDirectory("notify")
        let notify = try NotifySocket(path: directory.appending("notify.sock").path(percentEncoded: false))
        let server = try await ServerProcess(store: directory.appending("store"), port: try ServerProcess.freePort(), ["--drain-delay", "3"],
                                             environment: ["NOTIFY_SOCKET": notify.path])
        let ready = await notify.next(within: 10)
        #expect(ready?.contains("READY=1") == true, "got \(ready ?? "nothing")")
        #expect(ready?.contains("STATUS=serving on 127.0.0.1:\(server.port)") == true)
        #expect(try await server.get("/health/ready").status == 200)

        let stopRequested = ContinuousClock.now
        server.process.kill(SIGTERM)
        let stopping = await notify.next(within: 10)
        #expect(stopping?.contains("STOPPING=1") == true, "got \(stopping ?? "nothing")")
        let (status, body) = try await server.get("/health/ready")
        #expect(status == 503 && String(decoding: body, as: UTF8.self).contains("draining"), "still serving, but not ready")
        #expect(try await server.get("/health/live").status == 200)
        let outcome = await server.process.wait()
        #expect(outcome.exitCode == 0)
        #expect(ContinuousClock.now - stopRequested >= .seconds(3), "it kept serving for the drain delay")
    }

    @Test("without NOTIFY_SOCKET, or with one nobody listens on, the server starts and stops as always")
    func runsWithoutServiceManager() async throws {
        let directory = try TemporaryDirectory("notify")
        let server = try await ServerProcess(store: directory.appending("store"), port: try ServerProcess.freePort(), [],
                                             environment: ["NOTIFY_SOCKET": directory.appending("nobody.sock").path(percentEncoded: false)])
        #expect(try await server.get("/health/ready").status == 200)
        server.process.kill(SIGTERM)
        #expect(await server.process.wait().exitCode == 0)
    }

    @Test("--drain-delay outside 0…300 seconds is refused naming the option")
    func drainDelayIsChecked() async throws {
        let directory = try TemporaryDirectory("notify")
        let result = try await Attach.run(["serve", "--drain-delay", "301"], store: directory.appending("store"))
        #expect(result.exitCode != 0)
        #expect(result.stderr.contains("--drain-delay"))
    }
}
