import AsyncHTTPClient
import NIOCore

/// The bytes of a downloaded object as they arrive from the network, chunk by chunk.
///
/// Memory stays bounded by the HTTP client's backpressure: the next chunk is read from the
/// socket only when the previous one has been taken. The sequence throws
/// ``S3ClientError/corruptTransfer(key:reason:)`` when it ends before `Content-Length` bytes,
/// and ``S3ClientError/unreachable(endpoint:attempts:underlying:)`` when the connection is cut.
/// Iterate it once.
public struct S3ObjectBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    let key: String
    let endpoint: String
    let expectedLength: Int64?
    let body: HTTPClientResponse.Body

    /// Reads the next chunk from the network.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let key: String
        let endpoint: String
        let expectedLength: Int64?
        var base: HTTPClientResponse.Body.AsyncIterator
        var received: Int64 = 0

        /// The next chunk, or nil once every byte has arrived.
        /// - Throws: ``S3ClientError`` when the transfer is cut or short, or `CancellationError`.
        public mutating func next() async throws -> ByteBuffer? {
            let chunk: ByteBuffer?
            do {
                chunk = try await base.next()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw S3ClientError.unreachable(endpoint: endpoint, attempts: 1,
                                                underlying: "the download of \(key) was cut after \(received) bytes: \(error)")
            }
            guard let chunk else {
                if let expectedLength, received != expectedLength {
                    throw S3ClientError.corruptTransfer(key: key, reason: "the download ended after \(received) of \(expectedLength) bytes")
                }
                return nil
            }
            received += Int64(chunk.readableBytes)
            return chunk
        }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(key: key, endpoint: endpoint, expectedLength: expectedLength, base: body.makeAsyncIterator())
    }
}
