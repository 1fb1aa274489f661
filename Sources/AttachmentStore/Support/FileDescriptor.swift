import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing wrappers over the POSIX calls the blob store needs.
///
/// Each retries on `EINTR` and throws ``SystemError`` otherwise. All of them block:
/// call them from ``BlockingPool`` or a database writer queue.
package enum POSIXFile {
    /// Writes every byte of `buffer`, looping over short writes.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError("write")
            }
            offset += written
        }
    }

    /// Writes every byte of `bytes` at `offset` in the file (`pwrite`), looping over short writes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError("write")
            }
            done += written
        }
    }

    /// The size of an open file.
    static func size(_ fd: Int32) throws(SystemError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat") }
        return Int64(info.st_size)
    }

    /// Cuts (or extends) an open file to `length` bytes.
    static func truncate(_ fd: Int32, to length: Int64) throws(SystemError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw SystemError("ftruncate") }
        }
    }

    /// Reads up to `buffer.count` bytes; 0 means end of file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress!, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw SystemError("read") }
        }
    }

    /// Copies everything `input` has left to read into `output`, a chunk at a time.
    static func copyAll(from input: Int32, to output: Int32) throws(SystemError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: StoreFolderBlobs.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try read(input, into: buffer)
            if count == 0 { return }
            try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Flushes a file's data and metadata to stable storage.
    static func sync(_ fd: Int32) throws(SystemError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw SystemError("fsync") }
        }
    }

    /// Flushes a directory entry change (a create or rename inside `path`) to stable storage.
    static func syncDirectory(_ path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        try sync(fd)
    }

    /// Flushes every change to the filesystem holding `path` — file data, new entries, renames —
    /// to stable storage with one `syncfs`: what a batch uses instead of one `fsync` per file and
    /// per directory. Reports a write-back error of any file of that filesystem.
    static func syncFilesystem(containing path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        guard clinux_syncfs(fd) == 0 else { throw SystemError("syncfs") }
    }

    /// Bytes written to a file of `size` bytes between two ``startWriteback(_:from:count:)``
    /// calls: an eighth of the file, at least 2 MiB and at most 8 MiB (about what the disk takes
    /// in a few milliseconds). A 16 MB file starts its writeback every 2 MiB, so little is left
    /// for its closing flush; a large one in steps of 8 MiB, which keep the disk's queue full
    /// without a system call every few chunks (BENCHMARKS.md, peer sync).
    static func writebackStep(forFileOf size: Int64) -> Int64 {
        min(8 << 20, max(2 << 20, size / 8))
    }

    /// Asks the kernel to start writing `count` bytes of `fd` from `offset` to the disk now,
    /// without waiting (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so that the `fsync` or
    /// `syncfs` that later makes them durable finds them mostly written. Durability still
    /// comes only from that flush; a failure here is ignored, since that flush reports it.
    static func startWriteback(_ fd: Int32, from offset: Int64, count: Int64) {
        _ = clinux_start_writeback(fd, offset, count)
    }

    /// Creates `path` and any missing parents (mode 0700: a store's folders are its owner's
    /// alone), syncing each parent that gained an entry (unless `syncing` is false: the caller
    /// then flushes the whole filesystem, ``syncFilesystem(containing:)``, before relying on them).
    static func makeDirectories(_ path: String, syncing: Bool = true) throws(SystemError) {
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR { return }
        let parent = POSIXFile.parentFolder(of: path)
        if !parent.isEmpty { try makeDirectories(parent, syncing: syncing) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir \(path)") }
        if syncing && !parent.isEmpty { try syncDirectory(parent) }
    }

    /// The `stat` of a path, or `nil` when it does not exist.
    static func status(_ path: String) throws(SystemError) -> stat? {
        var info = stat()
        if stat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw SystemError("stat \(path)")
    }

    /// Removes a file; a file that is already gone is not an error.
    static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink \(path)") }
    }
}

extension POSIXFile {
    /// The folder part of `path`: everything before its last `/` (empty for a name without
    /// one, and for a file at the root).
    static func parentFolder(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The names in the folder at `path` (not `.` and `..`); none when it is missing or
    /// unreadable.
    static func names(in path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// The size of the file at `path`, or `nil` when it does not exist.
    static func size(ofFileAt path: String) throws(SystemError) -> Int64? {
        try status(path).map { Int64($0.st_size) }
    }

    /// The whole file at `path`, or `nil` when it cannot be read.
    static func contents(of path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Why the folder at `path` cannot be written to (an `errno`), or `nil` when it can.
    static func writeProblem(_ path: String) -> Int32? {
        access(path, W_OK) == 0 ? nil : errno
    }
}
