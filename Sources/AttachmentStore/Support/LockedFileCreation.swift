#if canImport(Glibc)
import Glibc
#endif

extension POSIXFile {
    /// `O_TMPFILE` as Linux defines it (`__O_TMPFILE | O_DIRECTORY`); Glibc's Swift module does
    /// not export the macro. `__O_TMPFILE` is the same on x86-64 and arm64.
    private static let temporaryFileFlag: Int32 = 0o20000000 | O_DIRECTORY

    /// The suffix of a file that ``createLocked(named:in:)`` has created but not yet locked
    /// and named, on a file system without unnamed files. Only such a file may be both
    /// unlocked and alive; `gc` leaves it alone for a minute.
    static let unlockedCreationSuffix = ".creating"

    /// Creates a new, empty file named `name` in `directory`, opened for writing and holding an
    /// exclusive `flock` from the moment it has that name — so `gc` in another process never
    /// sees it unlocked while its creator lives, and a crash at any instant leaves either
    /// nothing or a file whose lock died with its creator. Returns the descriptor. Blocks.
    /// - Throws: ``SystemError``; its code is `EEXIST` when `name` is already taken.
    static func createLocked(named name: String, in directory: String) throws(SystemError) -> Int32 {
        let path = directory + "/" + name
        let unnamed = open(directory, temporaryFileFlag | O_WRONLY | O_CLOEXEC, 0o600)
        if unnamed >= 0 {
            // The lock belongs to the open file, so it already holds when the file gets its name.
            flock(unnamed, LOCK_EX)
            if linkat(AT_FDCWD, "/proc/self/fd/\(unnamed)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 {
                return unnamed
            }
            let failure = SystemError("create \(path)")
            close(unnamed)
            // Without /proc an unnamed file cannot be named; anything else is a real failure.
            guard failure.code == ENOENT || failure.code == EPERM || failure.code == EACCES else { throw failure }
        } else if ![EOPNOTSUPP, EISDIR, EINVAL].contains(errno) {
            throw SystemError("create a temporary file in \(directory)")
        }
        return try createLockedUnderSecondName(path)
    }

    /// Creates `path` + ``unlockedCreationSuffix``, locks it, then gives it its real name
    /// (`link`, which never replaces a file) and drops the first.
    private static func createLockedUnderSecondName(_ path: String) throws(SystemError) -> Int32 {
        let creating = path + unlockedCreationSuffix
        let fd = open(creating, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("create \(creating)") }
        flock(fd, LOCK_EX)
        guard link(creating, path) == 0 else {
            let failure = SystemError("create \(path)")
            unlink(creating)
            close(fd)
            throw failure
        }
        unlink(creating)
        return fd
    }

    /// Whether `path` still names the open file `fd` (same device and inode): after locking a
    /// file opened by name, the proof that no one removed or replaced it in between.
    static func isStillNamed(_ fd: Int32, _ path: String) -> Bool {
        var held = stat(), named = stat()
        guard fstat(fd, &held) == 0, stat(path, &named) == 0 else { return false }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }
}
