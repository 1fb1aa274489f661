import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes from `offset` on, as `ByteBuffer` chunks for a request body, read on NIO's
/// thread pool (never on the cooperative pool), each chunk counted through `onChunk`, at most
/// `bandwidth` bytes a second when set.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let offset: Int64
    let bandwidth: Int64?
    let onChunk: @Sendable (Int) -> Void
    static let chunkSize = 256 << 10

    /// The open file; closed when the last iterator lets go of it.
    final class OpenFile: Sendable {
        let descriptor: Int32

        init(path: String) throws {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw AttachmentClientError.transport("cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(descriptor) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let path: String
        var position: Int64
        let bandwidth: Int64?
        let onChunk: @Sendable (Int) -> Void
        var file: OpenFile?

        mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            if file == nil {
                let path = self.path
                file = try await NIOThreadPool.singleton.runIfActive { try OpenFile(path: path) }
            }
            guard let file else { return nil }
            let at = position
            let bytes = try await NIOThreadPool.singleton.runIfActive { () throws -> [UInt8] in
                var buffer = [UInt8](repeating: 0, count: FileChunks.chunkSize)
                let count = buffer.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, off_t(at)) }
                guard count >= 0 else { throw AttachmentClientError.transport("cannot read the file: \(String(cString: strerror(errno)))") }
                buffer.removeSubrange(count...)
                return buffer
            }
            guard !bytes.isEmpty else { return nil }
            try await AttachmentClient.pace(bytes.count, bandwidth)
            position += Int64(bytes.count)
            onChunk(bytes.count)
            return ByteBuffer(bytes: bytes)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(path: path, position: offset, bandwidth: bandwidth, onChunk: onChunk) }
}
