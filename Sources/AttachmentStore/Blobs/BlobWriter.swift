import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An in-flight ingest: a temporary file in `tmp/` that is hashed as it is written.
///
/// The temporary file is `flock`ed for the writer's whole life, so `gc` in any process can
/// tell a live ingest from a leftover of a crash. Appends are serialised by a mutex; the
/// writer is meant to be fed by one task at a time from ``BlockingPool``.
final class BlobWriter: Sendable {
    private struct State {
        var fd: Int32
        var digest = BlobDigest()
    }

    /// How many leading bytes are kept for media-type sniffing.
    static let headLength = BlobDigest.headLength

    /// Where the bytes are being written.
    let temporaryPath: String
    /// The store directory, named in error messages.
    private let storePath: String
    private let state: Mutex<State?>

    /// Creates a new temporary file in `temporaryDirectory`, locked from the moment it has a
    /// name. Blocks.
    init(temporaryDirectory: String, storePath: String) throws(AttachmentStore.Error) {
        let name = "ingest-" + AttachmentID.make().rawValue + ".part"
        let fd: Int32
        do throws(SystemError) {
            fd = try POSIXFile.createLocked(named: name, in: temporaryDirectory)
        } catch {
            throw .writeFailed(path: storePath, cause: .system(error))
        }
        let path = temporaryDirectory + "/" + name
        self.temporaryPath = path
        self.storePath = storePath
        self.state = Mutex(State(fd: fd))
    }

    deinit { abort() }

    /// Hashes and writes `bytes`. Blocks.
    func append(_ bytes: UnsafeRawBufferPointer) throws(AttachmentStore.Error) {
        let storePath = self.storePath
        try state.withLock { (state: inout State?) throws(AttachmentStore.Error) in
            guard var current = state else { throw .writeFailed(path: storePath, cause: .condition("ingest already finished")) }
            do throws(SystemError) {
                try POSIXFile.writeAll(current.fd, bytes)
            } catch {
                throw .writeFailed(path: storePath, cause: .system(error))
            }
            current.digest.take(bytes)
            state = current
        }
    }

    /// Appends an array of bytes. Blocks.
    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in try append(buffer) }
    }

    /// Ends writing and returns the staged blob, still locked. The bytes are not yet synced:
    /// ``StoreFolderBlobs`` syncs them only when they will become a new blob. Blocks.
    func finish() throws(AttachmentStore.Error) -> StagedBlob {
        let storePath = self.storePath
        let path = temporaryPath
        return try state.withLock { (state: inout State?) throws(AttachmentStore.Error) -> StagedBlob in
            guard let current = state else { throw .writeFailed(path: storePath, cause: .condition("ingest already finished")) }
            state = nil
            return StagedBlob(
                temporaryPath: path, descriptor: current.fd, storePath: storePath,
                hash: current.digest.hash,
                byteCount: current.digest.byteCount, head: current.digest.head
            )
        }
    }

    /// Closes and deletes the temporary file; safe to call more than once. Blocks.
    func abort() {
        let path = temporaryPath
        state.withLock { state in
            guard let current = state else { return }
            unlink(path)
            close(current.fd)
            state = nil
        }
    }
}
