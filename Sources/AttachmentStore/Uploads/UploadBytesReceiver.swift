import Crypto
import Foundation

/// The one way a request's bytes enter an upload, whichever ``UploadStaging`` keeps it: written
/// into a file in pieces of about 1 MiB (blocking calls off the cooperative pool), hashed on the
/// way, and — when asked — made durable before they count.
///
/// What counts of a request:
/// - all of it, when it ends normally (and matches its checksum, when it came with one);
/// - when it is cut off midway (the connection dropped): what arrived, if it came without a
///   checksum — that is what resuming is for — and nothing if it came with one;
/// - nothing, when it goes past the upload's declared length or misses its checksum.
enum UploadBytesReceiver {
    /// What one request left.
    struct Outcome: Sendable {
        /// How many bytes count, written at the start offset on.
        var kept: Int64
        /// The SHA-256 of the bytes that count, when any do.
        var hash: BlobHash?
        /// Why the request ended early, if it did: what the byte sequence threw, or
        /// ``ResumableUploadError/exceedsLength(_:)`` / ``ResumableUploadError/checksumMismatch``.
        var failure: (any Swift.Error)?
    }

    /// Writes `bytes` into `fd` from `start` on, at most `room` of them, and leaves the file
    /// ending where what counts ends (synced when `durable`).
    /// - Parameters:
    ///   - declaredLength: the upload's whole length, for the message of a request that sends
    ///     more than `room`.
    ///   - path: the file's path, for the message of a failed write.
    /// - Throws: only ``AttachmentStore/Error/writeFailed(path:cause:)`` when the file cannot be
    ///   written; every other end is an ``Outcome/failure``.
    static func receive<Bytes: AsyncSequence>(
        _ bytes: Bytes, into fd: Int32, at start: Int64, room: Int64, declaredLength: Int64,
        checksum: UploadChecksum?, durable: Bool, path: String
    ) async throws -> Outcome where Bytes.Element: DataProtocol {
        var written: Int64 = 0
        var hasher = SHA256()
        /// Makes the file end at `start + kept`, durable when asked.
        func settle(keeping kept: Int64) async throws -> Int64 {
            try await onFile(path) {
                try POSIXFile.truncate(fd, to: start + kept)
                if durable { try POSIXFile.sync(fd) }
            }
            return kept
        }
        do {
            // A cut stream still delivers what arrived as a last step (see `ChunkSteps`), so every
            // byte hashed is written before the failure is seen below.
            for try await step in ChunkSteps(bytes, size: StoreFolderBlobs.chunkSize) {
                guard written + Int64(step.byteCount) <= room else {
                    throw AttachmentStore.Error.upload(.exceedsLength(declaredLength))
                }
                let piece = step.bytes, at = start + written
                hasher.update(data: piece)
                try await onFile(path) { try POSIXFile.writeAll(fd, piece, at: at) }
                written += Int64(piece.count)
            }
        } catch let error as AttachmentStore.Error where error.isWriteFailure {
            _ = try await settle(keeping: 0)
            throw error
        } catch {
            // Cut off: without a checksum what arrived counts; with one, or when the client sent
            // too much, none of this request does. Every byte hashed was written.
            let keep = checksum == nil && !(error is AttachmentStore.Error)
            let kept = try await settle(keeping: keep ? written : 0)
            return Outcome(kept: kept, hash: kept > 0 ? BlobHash(digest: hasher.finalize()) : nil, failure: error)
        }
        let digest = hasher.finalize()
        if let checksum, Array(digest) != checksum.sha256 {
            _ = try await settle(keeping: 0)
            return Outcome(kept: 0, hash: nil, failure: AttachmentStore.Error.upload(.checksumMismatch))
        }
        let kept = try await settle(keeping: written)
        return Outcome(kept: kept, hash: kept > 0 ? BlobHash(digest: digest) : nil, failure: nil)
    }

    /// Runs a blocking call on the file; a failed system call is a write failure there.
    private static func onFile<T: Sendable>(_ path: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingPool.run {
            do {
                return try body()
            } catch let error as SystemError {
                throw AttachmentStore.Error.writeFailed(path: path, cause: .system(error))
            }
        }
    }
}

extension AttachmentStore.Error {
    /// Whether this is a failure to write the store's own files.
    var isWriteFailure: Bool {
        if case .writeFailed = self { return true }
        return false
    }
}
