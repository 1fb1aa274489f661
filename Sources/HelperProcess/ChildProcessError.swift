import Glibc

/// Why a helper program gave no result. Each case names the program, so a user can tell a
/// missing tool from a file it could not read or one that took too long.
public enum ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The program is not installed where it was looked for.
    case programMissing(program: String)
    /// The program could not be started (`errno` from fork, the limits or exec).
    case couldNotStart(program: String, errno: Int32)
    /// It ran out of wall-clock time and was killed.
    case timedOut(program: String, limit: Duration)
    /// It used up its CPU time and the kernel stopped it.
    case cpuLimitExceeded(program: String, seconds: Int)
    /// It wrote more than the output limit and was killed.
    case outputTooLarge(program: String, limit: Int)
    /// It was killed by a signal it did not ask for (a crash).
    case killedBySignal(program: String, signal: Int32, standardError: String)
    /// It exited with a status other than 0; `standardError` is the end of what it said.
    case failed(program: String, status: Int32, standardError: String)
    /// The caller cancelled it and it was killed.
    case cancelled

    /// The most characters of a program's standard error kept in an error.
    public static let maximumErrorText = 2_000

    /// What went wrong, naming the program.
    public var description: String {
        switch self {
        case .programMissing(let program):
            "\(program) is not installed (on Debian: apt-get install ffmpeg poppler-utils)"
        case .couldNotStart(let program, let errno):
            "\(program) could not be started: \(String(cString: strerror(errno)))"
        case .timedOut(let program, let limit):
            "\(program) took longer than \(limit) and was stopped"
        case .cpuLimitExceeded(let program, let seconds):
            "\(program) used more than \(seconds) s of CPU time and was stopped"
        case .outputTooLarge(let program, let limit):
            "\(program) wrote more than \(limit) bytes and was stopped"
        case .killedBySignal(let program, let signal, let text):
            "\(program) crashed (signal \(signal))" + (text.isEmpty ? "" : ": \(text)")
        case .failed(let program, let status, let text):
            "\(program) failed with status \(status)" + (text.isEmpty ? "" : ": \(text)")
        case .cancelled:
            "the work was cancelled"
        }
    }
}
