import CLinux
import Glibc

/// Runs a helper program on a file someone else made, with limits it cannot lift.
///
/// The program starts in a session of its own, with a minimal environment (none of this
/// process's variables, tokens included), `/dev/null` as its input, no descriptor of ours but
/// its output pipes, no core files, no new privileges, and (when the kernel allows) no
/// network. Address space, CPU time, written files and open descriptors are limited in the
/// child before it runs; the wall clock, the output size and cancellation are kept here, and
/// each of them kills the child's whole process group. The program never outlives the call.
///
/// Every call blocks its thread until the program has exited and been reaped: run it on a
/// thread pool for blocking work, never on Swift's cooperative pool.
public enum LimitedChildProcess {
    /// The environment every program gets.
    public static let environment = ["PATH=/usr/bin:/bin", "LC_ALL=C"]

    /// Runs `executable` (an absolute path) with `arguments` under `limits`.
    /// - Returns: its standard output and the end of its standard error, when it exits with 0.
    /// - Throws: ``ChildProcessError``: the program is missing or could not start, ran out of
    ///   time or CPU, wrote too much, crashed, failed, or was cancelled.
    public static func run(
        _ executable: String, arguments: [String], limits: ChildProcessLimits = ChildProcessLimits(),
        cancellation: ChildProcessCancellation = ChildProcessCancellation()
    ) throws(ChildProcessError) -> ChildProcessOutput {
        let program = executable.split(separator: "/").last.map(String.init) ?? executable
        guard access(executable, X_OK) == 0 else { throw .programMissing(program: program) }
        guard !cancellation.isCancelled else { throw .cancelled }

        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&output) == 0 else { throw .couldNotStart(program: program, errno: errno) }
        guard clinux_pipe_cloexec(&errors) == 0 else {
            let saved = errno
            close(output[0]); close(output[1])
            throw .couldNotStart(program: program, errno: saved)
        }
        var isolated: Int32 = 0
        let pid = spawn(executable, arguments: [executable] + arguments, output: output[1], errors: errors[1],
                        limits: limits, isolated: &isolated)
        let spawnError = errno
        close(output[1])
        close(errors[1])
        defer { close(output[0]); close(errors[0]) }
        guard pid > 0 else {
            throw spawnError == ENOENT ? .programMissing(program: program) : .couldNotStart(program: program, errno: spawnError)
        }
        guard cancellation.begin(pid) else {
            reap(pid)
            throw .cancelled
        }

        var reading = OutputReading(output: output[0], errors: errors[0], limit: limits.maximumOutputBytes)
        let stop = reading.readUntilExit(of: pid, deadline: Deadline(after: limits.wallClock))
        if stop != nil { kill(-pid, SIGKILL) }
        // The child is a zombie until reaped, and its pid stays its own until then: whatever it
        // spawned goes with it now, and a cancel is unregistered before the pid can be handed on.
        waitUntilExited(pid)
        kill(-pid, SIGKILL)
        cancellation.end()
        let (status, usage) = reap(pid)

        let text = reading.errorText
        switch stop {
        case .timedOut: throw .timedOut(program: program, limit: limits.wallClock)
        case .outputTooLarge: throw .outputTooLarge(program: program, limit: limits.maximumOutputBytes)
        case nil: break
        }
        if cancellation.isCancelled { throw .cancelled }
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        // The kernel's SIGXCPU at the limit, or its SIGKILL a second later; a program that
        // handles SIGXCPU (ffmpeg does) exits on its own, having used its time.
        let signal = status & 0x7F
        if limits.cpuSeconds > 0, status != 0,
           signal == SIGXCPU || cpu >= Double(limits.cpuSeconds) - 0.25 {
            throw .cpuLimitExceeded(program: program, seconds: limits.cpuSeconds)
        }
        if signal != 0 {
            throw .killedBySignal(program: program, signal: signal, standardError: text)
        }
        let exitStatus = (status >> 8) & 0xFF
        guard exitStatus == 0 else { throw .failed(program: program, status: exitStatus, standardError: text) }
        return ChildProcessOutput(standardOutput: reading.standardOutput, standardError: text, networkIsolated: isolated != 0)
    }

    /// Forks and execs with the limits; the pid, or -1 with errno set.
    private static func spawn(_ executable: String, arguments: [String], output: Int32, errors: Int32,
                              limits: ChildProcessLimits, isolated: inout Int32) -> Int32 {
        var childLimits = clinux_child_limits(
            address_space_bytes: UInt64(max(0, limits.addressSpaceBytes)), cpu_seconds: UInt64(max(0, limits.cpuSeconds)),
            // RLIMIT_FSIZE of 0 would leave the limit as ours: one byte is the least the kernel keeps.
            file_size_bytes: UInt64(max(1, limits.fileSizeBytes)), open_files: UInt64(max(0, limits.openFiles)),
            isolate_network: limits.isolatesNetwork ? 1 : 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        return argv.withUnsafeBufferPointer { argvBuffer in
            envp.withUnsafeBufferPointer { envpBuffer in
                clinux_spawn_limited(executable, argvBuffer.baseAddress, envpBuffer.baseAddress, -1, output, errors,
                                     &childLimits, &isolated)
            }
        }
    }

    /// Blocks until `pid` has exited, leaving it unreaped.
    private static func waitUntilExited(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    }

    /// Reaps `pid`: its wait status and resource usage.
    @discardableResult
    private static func reap(_ pid: pid_t) -> (status: Int32, usage: rusage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return (status, usage)
    }
}

/// A point on the monotonic clock.
struct Deadline {
    private let nanoseconds: UInt64

    init(after duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds = Self.now() + UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// Milliseconds left, at least 0, at most `cap`.
    func millisecondsLeft(cap: Int) -> Int {
        let now = Self.now()
        guard nanoseconds > now else { return 0 }
        return Int(min(UInt64(cap), (nanoseconds - now + 999_999) / 1_000_000))
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
