import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An open, read-only blob file read in chunks from ``BlockingPool``.
///
/// The descriptor lives in a mutex so the reader can be handed between tasks; it is closed
/// at end of file, on error, or when the reader is released.
final class BlobFileReader: Sendable {
    private let descriptor: Mutex<Int32?>

    /// Opens `path` for reading. Blocks.
    init(path: String, hash: BlobHash) throws(AttachmentStore.Error) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .blobMissing(hash) }
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        descriptor = Mutex(fd)
    }

    deinit { close() }

    /// Reads up to `maximum` bytes; `nil` at end of file. Blocks.
    func read(maximum: Int) throws -> [UInt8]? {
        try descriptor.withLock { (fd: inout Int32?) throws -> [UInt8]? in
            guard let open = fd else { return nil }
            var bytes = [UInt8](repeating: 0, count: maximum)
            let count = try bytes.withUnsafeMutableBytes { try POSIXFile.read(open, into: $0) }
            if count == 0 {
                Glibc.close(open)
                fd = nil
                return nil
            }
            bytes.removeSubrange(count...)
            return bytes
        }
    }

    /// Closes the file early. Idempotent.
    func close() {
        descriptor.withLock { fd in
            if let open = fd { Glibc.close(open) }
            fd = nil
        }
    }
}
