import Crypto
import NIOCore
import Synchronization

/// The hashes of a file upload, fed by the request bodies as they stream from disk.
///
/// - The SHA-256 of the whole file grows only when bytes extend the prefix already hashed,
///   so a part sent twice (a retry) is hashed once. Parts must be sent in file order.
/// - The MD5 of the current request restarts with each attempt; it is compared with the
///   ETag the server answers.
///
/// The state lives in a `Mutex`: the HTTP client reads bodies on its own tasks.
final class UploadDigests: Sendable {
    private struct State {
        var file = SHA256()
        var hashedUpTo: Int64 = 0
        var request = Insecure.MD5()
    }

    private let state = Mutex(State())

    /// Starts the MD5 of a new request attempt.
    func beginRequest() {
        state.withLock { $0.request = Insecure.MD5() }
    }

    /// Hashes `buffer`, read from the file at `offset`.
    func feed(_ buffer: ByteBuffer, at offset: Int64) {
        buffer.withUnsafeReadableBytes { bytes in
            state.withLock { state in
                state.request.update(bufferPointer: bytes)
                let end = offset + Int64(bytes.count)
                guard offset <= state.hashedUpTo, end > state.hashedUpTo else { return }
                let skip = Int(state.hashedUpTo - offset)
                state.file.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[skip...]))
                state.hashedUpTo = end
            }
        }
    }

    /// The hex MD5 of the bytes sent by the current request.
    func requestMD5() -> String {
        state.withLock { $0.request.finalize().hexString }
    }

    /// The hex SHA-256 of the file, once `size` bytes have been hashed.
    func fileSHA256(size: Int64) -> String? {
        state.withLock { $0.hashedUpTo == size ? $0.file.finalize().hexString : nil }
    }
}
