import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A real, small tmpfs mounted on a folder, for filling a disk on purpose. Needs root (or
/// CAP_SYS_ADMIN); ``canMount`` says whether this machine allows it.
final class SmallFilesystem: Sendable {
    /// The mount point: a folder of its own inside `parent`.
    let url: URL
    private let parent: TemporaryDirectory

    /// Mounts a tmpfs of `mebibytes` MiB.
    init(mebibytes: Int) throws {
        parent = try TemporaryDirectory("small-fs")
        url = parent.appending("mnt")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard mount("tmpfs", url.path(percentEncoded: false), "tmpfs", 0, "size=\(mebibytes)m,mode=0755") == 0 else {
            throw Failed(message: "mount -t tmpfs: \(String(cString: strerror(errno)))")
        }
    }

    deinit { unmount() }

    /// Whether a tmpfs can be mounted here (root in a container that allows it).
    static let canMount: Bool = (try? SmallFilesystem(mebibytes: 1)) != nil

    /// Resizes the filesystem in place, files kept: space "returns".
    func resize(mebibytes: Int) throws {
        guard mount("tmpfs", url.path(percentEncoded: false), "tmpfs", UInt(MS_REMOUNT), "size=\(mebibytes)m") == 0 else {
            throw Failed(message: "mount -o remount: \(String(cString: strerror(errno)))")
        }
    }

    /// Free bytes on the filesystem.
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(url.path(percentEncoded: false), &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Writes zeros into `name` until the filesystem is full; returns the bytes written.
    @discardableResult
    func fill(_ name: String = "filler") -> Int {
        let fd = open(url.appending(path: name).path(percentEncoded: false), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { return total }
            total += written
        }
    }

    /// Unmounts (lazily, so a process still inside cannot keep it mounted).
    func unmount() {
        umount2(url.path(percentEncoded: false), Int32(MNT_DETACH))
    }

    struct Failed: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
