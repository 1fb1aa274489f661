import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Bytes that are durable in `tmp/` and hashed, waiting to be installed into `blobs/`.
///
/// The temporary file stays locked until ``release()``, so no `gc` removes it meanwhile.
final class StagedBlob: Sendable {
    /// The temporary file holding the bytes.
    let temporaryPath: String
    /// SHA-256 of the bytes.
    let hash: BlobHash
    /// Number of bytes.
    let byteCount: Int64
    /// The first bytes, for media-type sniffing.
    let head: [UInt8]
    private let descriptor: Mutex<Int32?>

    init(temporaryPath: String, descriptor: Int32, hash: BlobHash, byteCount: Int64, head: [UInt8]) {
        self.temporaryPath = temporaryPath
        self.descriptor = Mutex(descriptor)
        self.hash = hash
        self.byteCount = byteCount
        self.head = head
    }

    deinit { release() }

    /// The open descriptor of the temporary file, while the blob is staged.
    var fileDescriptor: Int32? { descriptor.withLock { $0 } }

    /// Deletes the temporary file if it is still there and drops the lock. Idempotent. Blocks.
    func release() {
        let path = temporaryPath
        descriptor.withLock { fd in
            guard let open = fd else { return }
            unlink(path)
            close(open)
            fd = nil
        }
    }
}
