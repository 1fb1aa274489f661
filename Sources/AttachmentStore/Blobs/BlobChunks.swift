/// The bytes of a blob as an asynchronous sequence of chunks, read off the cooperative pool.
///
/// Memory stays at one chunk whatever the blob's size. Iteration stops at the end of the
/// file; a cancelled task gets `CancellationError` at the next chunk.
public struct BlobChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let path: String
    let hash: BlobHash
    let chunkSize: Int

    /// Iterates the chunks of one blob.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let path: String
        let hash: BlobHash
        let chunkSize: Int
        var reader: BlobFileReader?
        var finished = false

        /// The next chunk, or `nil` at the end.
        /// - Throws: ``AttachmentStore/Error/blobMissing(_:)`` when the file is gone,
        ///   `CancellationError` when the task was cancelled.
        public mutating func next() async throws -> [UInt8]? {
            if finished { return nil }
            if Task.isCancelled {
                reader?.close()
                finished = true
                throw CancellationError()
            }
            if reader == nil {
                let (path, hash) = (self.path, self.hash)
                reader = try await BlockingPool.run { try BlobFileReader(path: path, hash: hash) }
            }
            let (reader, size) = (self.reader!, chunkSize)
            let chunk = try await BlockingPool.run { try reader.read(maximum: size) }
            if chunk == nil { finished = true }
            return chunk
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(path: path, hash: hash, chunkSize: chunkSize)
    }
}
