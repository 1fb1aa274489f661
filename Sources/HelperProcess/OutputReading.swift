import CLinux
import Glibc

/// Reads a child's standard output and error until it exits, a deadline passes or the output
/// grows past its limit.
struct OutputReading {
    /// Why reading stopped before the child exited.
    enum Stop { case timedOut, outputTooLarge }

    private let output: Int32
    private let errors: Int32
    private let limit: Int
    private(set) var standardOutput: [UInt8] = []
    /// The last bytes of standard error.
    private var errorTail: [UInt8] = []
    private static let errorTailBytes = 8 << 10

    init(output: Int32, errors: Int32, limit: Int) {
        self.output = output
        self.errors = errors
        self.limit = limit
    }

    /// Reads until the child exits (and its pipes are drained) or a stop; nil when it exited.
    /// A child that closes its pipes and keeps running is watched through a pidfd (or, on a
    /// kernel without them, by polling its status) until the deadline.
    mutating func readUntilExit(of pid: pid_t, deadline: Deadline) -> Stop? {
        let exitWatch = clinux_pidfd_open(pid)
        defer { if exitWatch >= 0 { close(exitWatch) } }
        var open: (output: Bool, errors: Bool) = (true, true)
        var exited = false
        while !exited || open.output || open.errors {
            if !exited && deadline.millisecondsLeft(cap: 1) == 0 { return .timedOut }
            let left = deadline.millisecondsLeft(cap: exitWatch >= 0 ? Int(Int32.max) : 20)
            var fds = [pollfd(fd: open.output ? output : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: open.errors ? errors : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: exited ? -1 : exitWatch, events: Int16(POLLIN), revents: 0)]
            // Once the child has exited, what is left in the pipes is read without waiting.
            let ready = poll(&fds, 3, exited ? 0 : Int32(left))
            if ready < 0 {
                if errno == EINTR { continue }
                return .timedOut
            }
            if fds[0].revents != 0 {
                guard read(output, into: &standardOutput, keepingLast: nil) else { open.output = false; continue }
                if standardOutput.count > limit { return .outputTooLarge }
            }
            if fds[1].revents != 0, !read(errors, into: &errorTail, keepingLast: Self.errorTailBytes) { open.errors = false }
            if !exited && (fds[2].revents != 0 || (exitWatch < 0 && hasExited(pid))) { exited = true }
            if exited && ready == 0 { break }
        }
        return nil
    }

    /// The end of standard error as text: printable characters, lines joined by " / ".
    var errorText: String {
        let text = String(decoding: errorTail, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { line in
            String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        }.filter { !$0.isEmpty }
        return String(lines.joined(separator: " / ").suffix(ChildProcessError.maximumErrorText))
    }

    /// Appends what `fd` has to `buffer`; false at end of file or on an error.
    private func read(_ fd: Int32, into buffer: inout [UInt8], keepingLast: Int?) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return true }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        if let keepingLast, buffer.count > keepingLast { buffer.removeFirst(buffer.count - keepingLast) }
        return true
    }

    /// Whether `pid` has exited (left unreaped).
    private func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
        return info._sifields._sigchld.si_pid == pid
    }
}
