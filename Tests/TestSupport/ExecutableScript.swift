import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A shell script a test runs in place of a real tool (a hostile or stuck ffmpeg, ffprobe or
/// pdftoppm).
public enum ExecutableScript {
    /// Writes `#!/bin/sh` and `body` to `name` in `directory`, executable; returns its path. It is
    /// written through a close-on-exec descriptor: one that a program started meanwhile by
    /// another test inherited would make running the script fail with ETXTBSY.
    public static func write(_ body: String, named name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.appending(name).path(percentEncoded: false)
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let text = Array(("#!/bin/sh\n" + body + "\n").utf8)
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == text.count else { throw POSIXError(.EIO) }
        return path
    }
}
