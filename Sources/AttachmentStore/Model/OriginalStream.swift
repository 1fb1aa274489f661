/// An attachment's original bytes as chunks, each with how far the load has come.
///
/// For viewers that show progress: every element carries the bytes read so far and the
/// total. Iteration stops at the end, and promptly (at the next chunk) when the task is
/// cancelled.
public struct OriginalStream: AsyncSequence, Sendable {
    /// One chunk and the progress it brings.
    public struct Chunk: Sendable {
        /// The bytes of this chunk.
        public let bytes: [UInt8]
        /// Bytes delivered so far, this chunk included.
        public let completed: Int64
        /// Bytes in all.
        public let total: Int64

        /// `completed / total`, from 0 to 1 (1 for an empty file).
        public var fraction: Double { total == 0 ? 1 : Double(completed) / Double(total) }
    }

    let chunks: BlobChunks
    /// Bytes in all.
    public let total: Int64

    /// Iterates the chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: BlobChunks.AsyncIterator
        let total: Int64
        var completed: Int64 = 0

        /// The next chunk with its progress, or `nil` at the end.
        /// - Throws: `CancellationError`, ``AttachmentStore/Error/blobMissing(_:)``.
        public mutating func next() async throws -> Chunk? {
            guard let bytes = try await base.next() else { return nil }
            completed += Int64(bytes.count)
            return Chunk(bytes: bytes, completed: completed, total: total)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: chunks.makeAsyncIterator(), total: total)
    }
}
