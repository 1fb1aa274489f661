import Foundation

extension BlobDownload {
    /// A body that stopped before its end, at `offset` (everything before it is kept, for a
    /// resume), because of `cause`.
    public struct Cut: Error {
        /// The bytes received, the resumed part included.
        public let offset: Int64
        /// What ended the body: the network's error, or the sender's.
        public let cause: any Error
    }

    /// The bytes of a download disagree with the size its record gives the blob.
    public enum SizeError: Error, Equatable, CustomStringConvertible {
        /// More bytes arrived than the blob has; the transfer stops before they are written.
        case overrun(received: Int64, expected: Int64)
        /// The download was finished with fewer bytes than the blob has (a cut transfer, not a
        /// wrong one: the bytes are kept for a resume).
        case incomplete(received: Int64, expected: Int64)

        /// What disagrees, in one line.
        public var description: String {
            switch self {
            case .overrun(let received, let expected): "the peer sent \(received) bytes for a blob of \(expected)"
            case .incomplete(let received, let expected): "only \(received) of \(expected) bytes of the blob have arrived"
            }
        }
    }

    /// The bytes gathered before they go to the disk in one step.
    public static let receiveStep = 1 << 20

    /// Streams `bytes`, which continue after ``receivedBytes``, into the download as a pipeline:
    /// while the next step (about a MiB) arrives, the previous one is hashed and written on the
    /// blocking pool. The pieces are handed over as they came, never copied; at most two steps
    /// are held. Calls `progress` with the bytes received and the step's size after each step.
    /// A fetch from a peer and a peer's push arrive through here alike.
    /// - Returns: the bytes received afterwards.
    /// - Throws: ``SizeError/overrun(received:expected:)`` as soon as the bytes go past
    ///   ``expectedSize``, before those bytes are written; the download's write errors;
    ///   `CancellationError`; ``Cut`` when `bytes` fails. A write under way is always awaited
    ///   first, so the partial file is never closed under it.
    public func receive<Bytes: AsyncSequence>(_ bytes: Bytes, progress: (Int64, Int64) -> Void = { _, _ in }) async throws -> Int64
    where Bytes.Element: DataProtocol & Sendable {
        var offset = receivedBytes
        let limit = expectedSize
        var writing: Task<Void, any Error>?
        do {
            do {
                // A cut stream still delivers what arrived as a last step (see `ChunkSteps`), so
                // it is written, and a resume starts after it.
                for try await step in ChunkSteps(bytes, size: Self.receiveStep) {
                    if offset + Int64(step.byteCount) > limit {
                        throw SizeError.overrun(received: offset + Int64(step.byteCount), expected: limit)
                    }
                    try await writing?.value
                    let pieces = step.chunks
                    writing = Task { try await self.append(contentsOf: pieces) }
                    offset += Int64(step.byteCount)
                    progress(offset, Int64(step.byteCount))
                }
            } catch let error where !(error is AttachmentStore.Error) && !(error is SizeError) && !(error is CancellationError) {
                try await writing?.value
                throw Cut(offset: offset, cause: error)
            }
            try await writing?.value
            return offset
        } catch {
            // The step being written is let finish before the partial can close; should it fail
            // too, the first error is the one reported, and the partial's hash still matches
            // its bytes (a failed write is neither counted nor hashed) for the next attempt.
            do {
                try await writing?.value
            } catch let second {
                store.configuration.logger.warning("a blob write failed after the transfer had already failed", metadata: [
                    "blob": "\(hash)", "error": "\(second)", "first": "\(error)",
                ])
            }
            throw error
        }
    }
}
