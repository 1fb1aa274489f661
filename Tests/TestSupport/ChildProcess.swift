import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, whose exit status and peak memory are read
/// with `wait4` (Foundation's `Process` reports neither the rusage nor a reliable kill).
///
/// Linux carries the spawning process's resident size into a child's `ru_maxrss` across
/// `exec`, so a child spawned straight from a large test runner reports the runner's size.
/// With `measuringMemory`, the child is started through the small `peak-rss` tool, which
/// spawns it from its own small address space and reports the child's true `ru_maxrss`.
public final class ChildProcess: Sendable {
    /// What a finished child did.
    public struct Outcome: Sendable {
        /// The exit code, or `nil` when a signal ended it.
        public var exitCode: Int32?
        /// The signal that ended it, if any.
        public var signal: Int32?
        /// Peak resident memory from `ru_maxrss`: the child's own when started with
        /// `measuringMemory`, otherwise an upper bound that includes the test runner's size.
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
    private let peakPath: String?

    /// Starts `executable` with `arguments`; standard input is `/dev/null`.
    /// - Parameter measuringMemory: start it through `peak-rss` (built beside the tests) so
    ///   that ``Outcome/peakResidentBytes`` is the child's own peak.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                measuringMemory: Bool = false) throws {
        let outputs = FileManager.default.temporaryDirectory.appending(path: "child-\(UUID().uuidString)")
        stdoutPath = outputs.path(percentEncoded: false) + ".out"
        stderrPath = outputs.path(percentEncoded: false) + ".err"
        peakPath = measuringMemory ? outputs.path(percentEncoded: false) + ".rss" : nil
        var (executable, arguments) = (executable, arguments)
        if let peakPath {
            arguments = [peakPath, executable] + arguments
            executable = Self.sibling("peak-rss")
        }
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
        var exited = (status & 0x7F) == 0
        var (code, signal) = (exited ? (status >> 8) & 0xFF : nil, exited ? nil : status & 0x7F)
        var peak = rss
        if let peakPath {
            peak = Int((try? String(contentsOfFile: peakPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            try? FileManager.default.removeItem(atPath: peakPath)
            if let exitCode = code, exitCode > 128 {
                exited = false
                (code, signal) = (nil, exitCode - 128)
            }
        }
        let outcome = Outcome(
            exitCode: code,
            signal: signal,
            peakResidentBytes: peak,
            stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        )
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
        return outcome
    }

    /// Runs a child to completion.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           measuringMemory: Bool = false) async throws -> Outcome {
        try await ChildProcess(executable, arguments, environment: environment, measuringMemory: measuringMemory).wait()
    }

    /// A program built beside the test bundle (in the same build folder).
    public static func sibling(_ name: String) -> String {
        URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: name).path(percentEncoded: false)
    }
}
