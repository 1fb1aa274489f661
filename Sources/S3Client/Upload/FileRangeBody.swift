import NIOCore
import NIOPosix

/// The bytes `range` of an open file as a request body, read chunk by chunk on NIO's
/// blocking thread pool when the HTTP client asks for them (so memory holds about one chunk).
///
/// Each chunk is fed to ``UploadDigests``. A file that ends before `range` does throws
/// ``S3ClientError/fileError(path:reason:)``.
struct FileRangeBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Bytes read per chunk: 256 KiB.
    static let chunkSize = 256 << 10

    let fileIO: NonBlockingFileIO
    let handle: NIOFileHandle
    let path: String
    let range: Range<Int64>
    let digests: UploadDigests

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: FileRangeBody
        var offset: Int64

        mutating func next() async throws -> ByteBuffer? {
            guard offset < body.range.upperBound else { return nil }
            let count = Int(Swift.min(Int64(FileRangeBody.chunkSize), body.range.upperBound - offset))
            let buffer: ByteBuffer
            do {
                buffer = try await body.fileIO.read(fileHandle: body.handle, fromOffset: offset, byteCount: count,
                                                    allocator: ByteBufferAllocator())
            } catch {
                throw S3ClientError.fileError(path: body.path, reason: "reading at byte \(offset) failed: \(error)")
            }
            guard buffer.readableBytes > 0 else {
                throw S3ClientError.fileError(path: body.path, reason: "the file ended at byte \(offset) while it was uploaded (was it truncated?)")
            }
            body.digests.feed(buffer, at: offset)
            offset += Int64(buffer.readableBytes)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: self, offset: range.lowerBound)
    }
}
