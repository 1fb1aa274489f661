import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A regular file in `tmp/` that no writer holds: opened, locked exclusively (so no writer can
/// take it while it is looked at) and proved to be still the file its path names. Every live
/// `tmp/` writer holds a `flock` from the file's first instant (``POSIXFile/createLocked(named:in:)``),
/// so a file that can be locked this way is dead. `gc`, the server's expiry of `tmp/` and the
/// caps on partial downloads all remove files through it.
struct DeadTemporaryFile: ~Copyable {
    let path: String
    let bytes: Int64
    let modified: Date
    private let fd: Int32

    /// Locks the file at `path`, or `nil` when it is held, gone, replaced, or not a regular file.
    init?(_ path: String) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        var info = stat()
        // A file no longer at `path` once locked (removed, or replaced by a new one, since the
        // open) is not the one to remove.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, POSIXFile.isStillNamed(fd, path), fstat(fd, &info) == 0,
              (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            return nil
        }
        self.path = path
        self.fd = fd
        self.bytes = Int64(info.st_size)
        self.modified = BlobFileScan.modificationDate(info)
    }

    deinit { Glibc.close(fd) }

    /// Removes the file (still locked, so no writer can have taken it meanwhile).
    /// - Throws: ``SystemError`` when it cannot be removed.
    consuming func remove() throws(SystemError) {
        try POSIXFile.remove(path)
    }
}
