import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Bytes written to `tmp/` and hashed, waiting to be installed into `blobs/`.
///
/// The temporary file stays locked until ``release()``, so no `gc` removes it meanwhile.
/// Its bytes are synced (``makeDurable()``) before they can become a blob; a copy of content
/// the store already has is never synced, only dropped.
final class StagedBlob: Sendable {
    private struct State {
        var fd: Int32?
        var durable = false
    }

    /// The temporary file holding the bytes.
    let temporaryPath: String
    /// SHA-256 of the bytes.
    let hash: BlobHash
    /// Number of bytes.
    let byteCount: Int64
    /// The first bytes, for media-type sniffing.
    let head: [UInt8]
    private let storePath: String
    private let state: Mutex<State>

    init(temporaryPath: String, descriptor: Int32, storePath: String, hash: BlobHash, byteCount: Int64, head: [UInt8]) {
        self.temporaryPath = temporaryPath
        self.storePath = storePath
        self.state = Mutex(State(fd: descriptor))
        self.hash = hash
        self.byteCount = byteCount
        self.head = head
    }

    deinit { release() }

    /// The open descriptor of the temporary file, while the blob is staged.
    var fileDescriptor: Int32? { state.withLock { $0.fd } }

    /// Syncs the bytes to stable storage, once. Blocks.
    func makeDurable() throws(AttachmentStore.Error) {
        let storePath = self.storePath
        try state.withLock { (state: inout State) throws(AttachmentStore.Error) in
            guard !state.durable, let fd = state.fd else { return }
            do throws(SystemError) {
                try POSIXFile.sync(fd)
            } catch {
                throw .writeFailed(path: storePath, cause: .system(error))
            }
            state.durable = true
        }
    }

    /// Starts writing the bytes to the disk without waiting (see
    /// ``POSIXFile/startWriteback(_:from:count:)``): a batch's `syncfs` then finds them mostly
    /// written. Makes nothing durable by itself. Blocks briefly.
    func startWriteback() {
        state.withLock { state in
            guard !state.durable, let fd = state.fd else { return }
            POSIXFile.startWriteback(fd, from: 0, count: 0)
        }
    }

    /// Records that the bytes reached stable storage through a `syncfs` of their filesystem
    /// made after they were all written (``StoreFolderBlobs/makeDurable(_:)``), so ``makeDurable()``
    /// has nothing left to do.
    func recordSyncedByFilesystemFlush() {
        state.withLock { $0.durable = true }
    }

    /// Deletes the temporary file if it is still there and drops the lock. Idempotent. Blocks.
    func release() {
        let path = temporaryPath
        state.withLock { state in
            guard let open = state.fd else { return }
            unlink(path)
            close(open)
            state.fd = nil
        }
    }
}
