import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// "Least recently read" for files on disk: the one place that records a read (the access
/// time, set explicitly so it holds on `noatime` mounts) and trims a folder to a byte limit.
/// Every function blocks.
enum LeastRecentlyRead {
    /// Records that the file at `path` was just read. A failure (a read-only filesystem) only
    /// makes the file look older to the budget, so it is not reported.
    static func touch(_ path: String) {
        var times = [timespec(tv_sec: 0, tv_nsec: nowTime), timespec(tv_sec: 0, tv_nsec: omitTime)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// Records a read of the file at `path` if there is one; whether there was.
    /// - Throws: ``SystemError`` when the file cannot be looked at (other than being absent).
    static func touchIfPresent(_ path: String) throws(SystemError) -> Bool {
        guard try POSIXFile.status(path) != nil else { return false }
        touch(path)
        return true
    }

    /// Opens the file at `path` for reading without recording a read, like `open` (a descriptor,
    /// or -1 with `errno` set). Maintenance (a re-hash, a backup copy, a proof sample) is not a
    /// read: on a `relatime` mount the kernel would otherwise set the access time on the first read
    /// after a write, and the budget would evict by the order scrubbing happened to visit files.
    /// `O_NOATIME` is refused (EPERM) for a file of another owner; that file opens plainly.
    static func openWithoutRecordingRead(_ path: String, flags: Int32 = O_CLOEXEC) -> Int32 {
        let fd = open(path, O_RDONLY | flags | noAccessTime)
        guard fd < 0, errno == EPERM else { return fd }
        return open(path, O_RDONLY | flags)
    }

    /// Runs `body`, which reads the file at `path` through code that opens it itself (libvips),
    /// and puts the file's access time back as it was: rendering a thumbnail is not a read of the
    /// original. A ``touch(_:)`` by another thread during `body` is lost; the file then only looks
    /// older to the budget by the length of one render.
    static func preservingLastRead<T>(of path: String, _ body: () throws -> T) throws -> T {
        guard let before = (try? POSIXFile.status(path)) ?? nil else { return try body() }
        defer {
            var times = [before.st_atim, timespec(tv_sec: 0, tv_nsec: omitTime)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
        return try body()
    }

    /// `O_NOATIME` (`<fcntl.h>`, `__O_NOATIME`, octal 01000000 on Linux), which Swift does not import.
    private static let noAccessTime: Int32 = 0o1000000
    /// `UTIME_NOW` and `UTIME_OMIT` (`<sys/stat.h>`, `((1l << 30) - 1l)` and `- 2l`), which Swift
    /// does not import: "set to now" and "leave alone" in a `utimensat` time.
    private static let nowTime = (1 << 30) - 1
    private static let omitTime = (1 << 30) - 2

    /// When the file at `path` was last read (or written), `nil` when it is gone.
    static func lastRead(_ path: String) -> Date? {
        guard let info = (try? POSIXFile.status(path)) ?? nil else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(info.st_atim.tv_sec) + TimeInterval(info.st_atim.tv_nsec) / 1e9)
    }

    /// One regular file under a folder.
    struct Entry {
        var path: String
        var bytes: Int64
        var lastRead: Date
    }

    /// Every regular file under `folder` except unfinished writes (names with `.part-`).
    static func files(under folder: String) -> [Entry] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var entries: [Entry] = []
        while let relative = enumerator.nextObject() as? String {
            let path = folder + "/" + relative
            guard !(relative.split(separator: "/").last ?? "").contains(".part-"), let info = (try? POSIXFile.status(path)) ?? nil,
                  (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let read = Date(timeIntervalSince1970: TimeInterval(info.st_atim.tv_sec) + TimeInterval(info.st_atim.tv_nsec) / 1e9)
            entries.append(Entry(path: path, bytes: Int64(info.st_size), lastRead: read))
        }
        return entries
    }

    /// Removes the least recently read files under `folder` until it holds at most `limit`
    /// bytes, sparing those read within `grace` of now. Returns what it removed.
    static func trim(_ folder: String, to limit: Int64, grace: TimeInterval) throws(SystemError) -> (files: Int, bytes: Int64, left: Int64) {
        let entries = files(under: folder).sorted { $0.lastRead < $1.lastRead }
        var total = entries.reduce(Int64(0)) { $0 + $1.bytes }
        var removed = (files: 0, bytes: Int64(0))
        let spared = Date().addingTimeInterval(-grace)
        for entry in entries where total > limit && entry.lastRead < spared {
            try POSIXFile.remove(entry.path)
            total -= entry.bytes
            removed.files += 1
            removed.bytes += entry.bytes
        }
        return (removed.files, removed.bytes, total)
    }
}
