import Foundation
import Glibc
import HelperProcess
import Testing
import TestSupport

/// A helper program that reads someone else's file runs inside limits it cannot lift: each
/// test here is a program that tries to get past one of them.
@Suite("Helper programs run as limited child processes", .timeLimit(.minutes(2)))
struct LimitedChildProcessTests {
    /// Whether process `pid` is gone (not even a zombie of ours).
    static func isGone(_ pid: pid_t) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    /// Runs `body` on a thread of its own: the runner blocks, as it does on the render pool.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, ChildProcessError> {
        do {
            return .success(try await OwnThread.run(body))
        } catch {
            return .failure(error as! ChildProcessError)  // the runner throws nothing else
        }
    }

    @Test func aProgramThatExitsCleanlyGivesItsOutput() async throws {
        let output = try await Self.blocking { try LimitedChildProcess.run("/bin/echo", arguments: ["hello", "world"]) }.get()
        #expect(String(decoding: output.standardOutput, as: UTF8.self) == "hello world\n")
    }

    @Test func aMissingProgramIsNamedAsMissing() async {
        let result = await Self.blocking { try LimitedChildProcess.run("/usr/bin/no-such-tool", arguments: []) }
        #expect(throws: ChildProcessError.programMissing(program: "no-such-tool")) { try result.get() }
    }

    @Test func aFailingProgramReportsItsStatusAndWhatItSaid() async {
        let result = await Self.blocking { try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "echo 'bad input' >&2; exit 3"]) }
        #expect(throws: ChildProcessError.failed(program: "sh", status: 3, standardError: "bad input")) { try result.get() }
    }

    @Test func theEnvironmentIsMinimalAndCarriesNothingOfOurs() async throws {
        setenv("ATTACH_SECRET_FOR_TEST", "do-not-leak", 1)
        let output = try await Self.blocking { try LimitedChildProcess.run("/usr/bin/env", arguments: []) }.get()
        let lines = String(decoding: output.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
        #expect(lines == LimitedChildProcess.environment.sorted())
    }

    @Test func noDescriptorOfOursReachesTheProgram() async throws {
        let directory = try TemporaryDirectory("fds")
        let fd = open(directory.appending("held").path(percentEncoded: false), O_CREAT | O_RDWR, 0o600)
        #expect(fd > 2)
        defer { close(fd) }
        let output = try await Self.blocking {
            try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "if [ -e /proc/$$/fd/\(fd) ]; then echo open; else echo closed; fi"])
        }.get()
        #expect(String(decoding: output.standardOutput, as: UTF8.self) == "closed\n")
    }

    @Test func aProgramThatRunsTooLongIsKilledWithItsWholeGroup() async throws {
        let directory = try TemporaryDirectory("slow")
        let pidFile = directory.appending("pids").path(percentEncoded: false)
        let limits = ChildProcessLimits(wallClock: .milliseconds(500), fileSizeBytes: 1 << 20)
        let started = ContinuousClock.now
        // A shell, and a child of its own that would outlive it.
        let result = await Self.blocking {
            try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "sleep 600 & echo $$ $! > \(pidFile); wait"], limits: limits)
        }
        #expect(throws: ChildProcessError.timedOut(program: "sh", limit: .milliseconds(500))) { try result.get() }
        #expect(ContinuousClock.now - started < .seconds(120), "stopped at its limit, not after its ten minutes")
        let pids = try String(contentsOfFile: pidFile, encoding: .utf8).split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(pids.count == 2)
        // The grandchild is killed with the group, and reaped by init.
        for _ in 0..<100 where !pids.allSatisfy(Self.isGone) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(pids.allSatisfy(Self.isGone), "\(pids)")
    }

    @Test func aProgramThatClosesItsOutputAndKeepsRunningIsStillStopped() async {
        let limits = ChildProcessLimits(wallClock: .milliseconds(400))
        let result = await Self.blocking {
            try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "exec >&- 2>&-; sleep 60"], limits: limits)
        }
        #expect(throws: ChildProcessError.timedOut(program: "sh", limit: .milliseconds(400))) { try result.get() }
    }

    @Test func aProgramThatSpinsIsStoppedByItsCPULimit() async {
        let limits = ChildProcessLimits(wallClock: .seconds(30), cpuSeconds: 1)
        let result = await Self.blocking { try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "while :; do :; done"], limits: limits) }
        #expect(throws: ChildProcessError.cpuLimitExceeded(program: "sh", seconds: 1)) { try result.get() }
    }

    @Test func aProgramCannotMapMoreMemoryThanItsLimit() async {
        let limits = ChildProcessLimits(addressSpaceBytes: 256 << 20)
        let result = await Self.blocking {
            try LimitedChildProcess.run("/usr/bin/python3", arguments: ["-c", "x = bytearray(512 << 20); print('allocated')"], limits: limits)
        }
        guard case .failure(.failed(program: "python3", status: 1, let text)) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(text.contains("MemoryError"), "\(text)")
    }

    @Test func aProgramCannotWriteFiles() async throws {
        let directory = try TemporaryDirectory("writes")
        let target = directory.appending("written").path(percentEncoded: false)
        let result = await Self.blocking {
            try LimitedChildProcess.run("/bin/sh", arguments: ["-c", "head -c 100000 /dev/zero > \(target)"])
        }
        guard case .failure = result else {
            Issue.record("writing a file succeeded")
            return
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        #expect(size <= 1)
    }

    @Test func aWritePastTheFileSizeLimitFailsAndTheProgramGoesOn() async throws {
        // As fontconfig does under pdftoppm when the system's font cache is stale: it tries to
        // write a new one, the write fails, and the drawing goes on.
        let directory = try TemporaryDirectory("cache-writes")
        let target = directory.appending("cache").path(percentEncoded: false)
        let script = "if head -c 100000 /dev/zero > \(target); then echo written; else echo refused; fi; echo drawn"
        let output = try await Self.blocking { try LimitedChildProcess.run("/bin/sh", arguments: ["-c", script]) }.get()
        #expect(String(decoding: output.standardOutput, as: UTF8.self) == "refused\ndrawn\n")
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        #expect(size <= 1)
    }

    @Test func aProgramThatFloodsItsOutputIsStoppedAtTheLimit() async {
        let limits = ChildProcessLimits(maximumOutputBytes: 1 << 20)
        let result = await Self.blocking { try LimitedChildProcess.run("/usr/bin/yes", arguments: [], limits: limits) }
        #expect(throws: ChildProcessError.outputTooLarge(program: "yes", limit: 1 << 20)) { try result.get() }
    }

    @Test func aProgramWithoutNetworkCannotReachAListenerOnThisMachine() async throws {
        // A real listener on loopback: a program that shares our network reaches it.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } } == 0)
        try #require(listen(listener, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let connect = "import socket; socket.create_connection(('127.0.0.1', \(port)), timeout=2); print('connected')"

        let shared = try await Self.blocking {
            try LimitedChildProcess.run("/usr/bin/python3", arguments: ["-c", connect], limits: ChildProcessLimits(isolatesNetwork: false))
        }.get()
        #expect(String(decoding: shared.standardOutput, as: UTF8.self) == "connected\n")
        #expect(!shared.networkIsolated)

        let isolated = await Self.blocking { try LimitedChildProcess.run("/usr/bin/python3", arguments: ["-c", connect]) }
        guard case .failure(.failed(program: "python3", status: 1, let text)) = isolated else {
            Issue.record("a program without network connected: \(isolated)")
            return
        }
        #expect(text.contains("OSError") || text.contains("unreachable") || text.contains("refused"), "\(text)")
    }

    @Test func cancellingStopsTheProgramAtOnce() async throws {
        let cancellation = ChildProcessCancellation()
        let started = ContinuousClock.now
        async let result = Self.blocking {
            try LimitedChildProcess.run("/bin/sleep", arguments: ["600"], cancellation: cancellation)
        }
        try await Task.sleep(for: .milliseconds(300))
        cancellation.cancel()
        let outcome = await result
        #expect(throws: ChildProcessError.cancelled) { try outcome.get() }
        #expect(ContinuousClock.now - started < .seconds(120), "stopped by the cancel, not after its ten minutes")
    }

    @Test func aCancelledTokenStartsNothing() async {
        let cancellation = ChildProcessCancellation()
        cancellation.cancel()
        let result = await Self.blocking { try LimitedChildProcess.run("/bin/echo", arguments: ["no"], cancellation: cancellation) }
        #expect(throws: ChildProcessError.cancelled) { try result.get() }
    }
}
