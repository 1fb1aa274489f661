#if canImport(Glibc)
import Glibc
#endif

/// Every entry under a folder, read with `readdir` and `fstatat` relative to each folder's
/// descriptor: no Foundation enumerator, no full path rebuilt and resolved again per file.
/// Symbolic links are reported as links, never followed; entries that vanish or cannot be
/// read meanwhile are skipped (a walk of a live store is a snapshot of nothing in particular).
/// Blocks.
enum FileTreeWalk {
    /// Calls `visit` for `root` itself (relative path `""`) and then for every entry below it,
    /// with its path relative to `root` (`blobs/sha256/ab`) and its `lstat`. Nothing is
    /// visited when `root` does not exist.
    static func visit(_ root: String, _ visit: (_ relative: String, _ info: stat) -> Void) {
        var info = stat()
        guard lstat(root, &info) == 0 else { return }
        visit("", info)
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return }
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        walk(fd, prefix: "", visit)
    }

    /// The regular files under `root` and their apparent sizes (what the derived caches report).
    static func regularFiles(under root: String) -> (files: Int, bytes: Int64) {
        var (files, bytes) = (0, Int64(0))
        visit(root) { _, info in
            guard (info.st_mode & S_IFMT) == S_IFREG else { return }
            files += 1
            bytes += Int64(info.st_size)
        }
        return (files, bytes)
    }

    /// Bytes the files under `path` (and `path` itself) occupy on disk, as `du` counts them:
    /// allocated blocks, not apparent sizes.
    static func diskUsage(of path: String) -> Int64 {
        var total: Int64 = 0
        visit(path) { _, info in total += allocatedBytes(info) }
        return total
    }

    /// The bytes an entry occupies on disk.
    static func allocatedBytes(_ info: stat) -> Int64 { Int64(info.st_blocks) * 512 }

    /// Visits the entries of the open folder `fd` (closed on return) and recurses into folders.
    private static func walk(_ fd: Int32, prefix: String, _ visit: (String, stat) -> Void) {
        guard let directory = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            // The entry's own bytes name it to the kernel; the decoded name (any byte that is
            // not UTF-8 replaced) is only for the relative path handed to `visit`.
            var info = stat()
            let (name, found) = withUnsafeBytes(of: entry.pointee.d_name) { bytes -> (String, Bool) in
                let raw = bytes.assumingMemoryBound(to: CChar.self).baseAddress!
                let name = String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
                guard name != "." && name != ".." else { return (name, false) }
                return (name, fstatat(fd, raw, &info, AT_SYMLINK_NOFOLLOW) == 0)
            }
            guard found else { continue }
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            visit(relative, info)
            guard (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            let child = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                openat(fd, bytes.assumingMemoryBound(to: CChar.self).baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
            }
            if child >= 0 { walk(child, prefix: relative, visit) }
        }
    }
}
