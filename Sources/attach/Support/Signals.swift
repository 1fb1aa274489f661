import Foundation

/// Process-wide signal dispositions the CLI sets at start.
enum Signals {
    /// Makes a write past the file-size limit (`ulimit -f`) fail with `EFBIG`, reported like any
    /// other write error, instead of killing the process with `SIGXFSZ`.
    static func ignoreFileSizeLimit() {
        signal(SIGXFSZ, SIG_IGN)
    }
}
