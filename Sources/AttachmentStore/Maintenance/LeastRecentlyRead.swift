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
        // UTIME_NOW and UTIME_OMIT (<sys/stat.h>, `((1l << 30) - 1l)` and `- 2l`), which Swift does not import.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// Records a read of the file at `path` if there is one; whether there was.
    /// - Throws: ``SystemError`` when the file cannot be looked at (other than being absent).
    static func touchIfPresent(_ path: String) throws(SystemError) -> Bool {
        guard try POSIXFile.status(path) != nil else { return false }
        touch(path)
        return true
    }

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
