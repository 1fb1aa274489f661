import Hummingbird
import NIOCore
import NIOFoundationCompat

/// A request body as the store wants it: chunks of bytes (`ByteBufferView`, a `DataProtocol`),
/// streamed as they arrive, never gathered whole.
///
/// It counts what passes and throws ``ServerError/uploadTooLarge(limit:)`` as soon as the
/// count passes `limit`, so an oversized upload stops at the limit instead of filling the disk.
struct UploadBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBufferView

    let base: Base
    let limit: Int64
    /// Called with the size of every chunk that passes (for the upload-bytes metric).
    let onChunk: @Sendable (Int) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        let onChunk: @Sendable (Int) -> Void
        var received: Int64 = 0

        mutating func next() async throws -> ByteBufferView? {
            guard let buffer = try await base.next() else { return nil }
            received += Int64(buffer.readableBytes)
            guard received <= limit else { throw ServerError.uploadTooLarge(limit: limit) }
            onChunk(buffer.readableBytes)
            return buffer.readableBytesView
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, onChunk: onChunk)
    }
}
