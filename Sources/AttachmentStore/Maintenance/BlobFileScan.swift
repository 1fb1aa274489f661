import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Walks and re-hashes blob files for `verify`, `gc` and `stats`. Every function blocks.
enum BlobFileScan {
    /// A file found under `blobs/sha256/` whose name is a valid hash.
    struct Entry: Sendable {
        var hash: BlobHash
        var path: String
        var byteCount: Int64
        var modified: Date
    }

    /// Every blob file under `blobsDirectory`.
    static func files(in blobsDirectory: String) -> [Entry] {
        guard let enumerator = FileManager.default.enumerator(atPath: blobsDirectory) else { return [] }
        var entries: [Entry] = []
        while let relative = enumerator.nextObject() as? String {
            let name = String(relative.split(separator: "/").last ?? "")
            guard let hash = BlobHash(rawValue: name) else { continue }
            let path = blobsDirectory + "/" + relative
            guard let info = try? POSIXFile.status(path), (info.st_mode & S_IFMT) == S_IFREG else { continue }
            entries.append(Entry(hash: hash, path: path, byteCount: Int64(info.st_size), modified: modificationDate(info)))
        }
        return entries
    }

    /// The SHA-256 and size of the file at `path`, read in chunks.
    static func hash(fileAt path: String) throws -> (BlobHash, Int64) {
        let digest = try digest(fileAt: path)
        return (digest.hash, digest.byteCount)
    }

    /// Everything ``BlobDigest`` learns of the bytes of the file at `path`, read in chunks.
    static func digest(fileAt path: String) throws(SystemError) -> BlobDigest {
        let fd = LeastRecentlyRead.openWithoutRecordingRead(path)
        guard fd >= 0 else { throw SystemError("open") }
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: StoreFolderBlobs.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var digest = BlobDigest()
        while true {
            let count = try POSIXFile.read(fd, into: buffer)
            if count == 0 { return digest }
            digest.take(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// A `stat` modification time as a date.
    static func modificationDate(_ info: stat) -> Date {
        Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
    }
}
