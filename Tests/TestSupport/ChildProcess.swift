import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, whose exit status and peak memory are read
/// with `wait4` (Foundation's `Process` reports neither the rusage nor a reliable kill).
public final class ChildProcess: Sendable {
    /// What a finished child did.
    public struct Outcome: Sendable {
        /// The exit code, or `nil` when a signal ended it.
        public var exitCode: Int32?
        /// The signal that ended it, if any.
        public var signal: Int32?
        /// Peak resident memory, from `ru_maxrss`.
        public var peakResidentBytes: Int
        /// Everything it wrote to standard output.
        public var stdout: String
        /// Everything it wrote to standard error.
        public var stderr: String
    }

    /// The child's process id.
    public let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String

    /// Starts `executable` with `arguments`; standard input is `/dev/null`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let outputs = FileManager.default.temporaryDirectory.appending(path: "child-\(UUID().uuidString)")
        stdoutPath = outputs.path(percentEncoded: false) + ".out"
        stderrPath = outputs.path(percentEncoded: false) + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        pid = child
    }

    /// Sends `signal` (default SIGKILL).
    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(pid, signal)
    }

    /// What the child has written to standard output so far.
    public var stdoutSoFar: String {
        (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
    }

    /// Waits for the child to end (on a thread outside the cooperative pool) and collects its outcome.
    public func wait() async -> Outcome {
        let pid = self.pid
        let (status, rss) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, Int), Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                continuation.resume(returning: (status, Int(usage.ru_maxrss) * 1024))
            }
        }
        let exited = (status & 0x7F) == 0
        let outcome = Outcome(
            exitCode: exited ? (status >> 8) & 0xFF : nil,
            signal: exited ? nil : status & 0x7F,
            peakResidentBytes: rss,
            stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        )
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
        return outcome
    }

    /// Runs a child to completion.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        try await ChildProcess(executable, arguments, environment: environment).wait()
    }
}
