import Hummingbird
import NIOCore
import NIOHTTP1
import NIOFoundationCompat

/// A request body as the store wants it: chunks of bytes (`ByteBufferView`, a `DataProtocol`),
/// streamed as they arrive, never gathered whole.
///
/// It counts what passes and throws ``ServerError/uploadTooLarge(limit:)`` as soon as the
/// count passes `limit`, so an oversized upload stops at the limit instead of filling the disk.
/// With a `rate`, it throws ``ServerError/uploadTooSlow(_:)`` when the body arrives slower than
/// the rate allows, so a trickling client cannot hold an upload (and its temporary file) forever.
/// A body cut off by the client is a 400 `body_interrupted`.
struct UploadBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBufferView

    let base: Base
    let limit: Int64
    /// The minimum arrival rate, if any.
    let rate: UploadRate?
    /// Called with the size of every chunk that passes (for the upload-bytes metric).
    let onChunk: @Sendable (Int) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        var rate: UploadRate?
        let onChunk: @Sendable (Int) -> Void
        var received: Int64 = 0

        mutating func next() async throws -> ByteBufferView? {
            let asked = ContinuousClock.now
            let next: ByteBuffer?
            do {
                next = try await base.next()
            } catch is HTTPParserError {
                // The client went away mid-body: its fault, not the server's (a 400 in the log and
                // metrics, not a 500); what arrived before is the caller's to keep or drop.
                throw ServerError.badRequest("the connection closed before the body ended", code: "body_interrupted")
            }
            guard let buffer = next else { return nil }
            received += Int64(buffer.readableBytes)
            guard received <= limit else { throw ServerError.uploadTooLarge(limit: limit) }
            if var rule = rate {
                guard rule.record(buffer.readableBytes, after: ContinuousClock.now - asked) else {
                    throw ServerError.uploadTooSlow(rule)
                }
                rate = rule
            }
            onChunk(buffer.readableBytes)
            return buffer.readableBytesView
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, rate: rate, onChunk: onChunk)
    }
}
