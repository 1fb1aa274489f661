import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The original bytes of an attachment, ready to be read: as chunks, as a file, or whole.
///
/// Getting a content value reads nothing; each access method reads from disk off the
/// cooperative pool. The underlying file is read-only and never changes.
public struct AttachmentContent: Sendable {
    /// The attachment these bytes belong to.
    public let attachment: Attachment
    /// The blob file, for callers that hand files to other tools (never write to it).
    public let fileURL: URL
    /// Size of the bytes.
    public let byteCount: Int64
    /// SHA-256 of the bytes.
    public let hash: BlobHash
    /// The name the bytes were imported under (display only; a path only once made safe).
    public let filename: String
    /// Their media type.
    public let mediaType: String

    /// The attachment's own original, in the file at `fileURL`.
    init(attachment: Attachment, fileURL: URL) {
        self.attachment = attachment
        self.fileURL = fileURL
        (byteCount, hash, filename, mediaType) = (attachment.byteCount, attachment.blobHash, attachment.filename, attachment.mediaType)
    }

    /// A Live Photo's clip, the second original of `attachment`, in the file at `fileURL`.
    init(attachment: Attachment, motion: Attachment.Motion, fileURL: URL) {
        self.attachment = attachment
        self.fileURL = fileURL
        (byteCount, hash, filename, mediaType) = (motion.byteCount, motion.blobHash, motion.filename, motion.mediaType)
    }

    /// The bytes as a sequence of chunks of at most `chunkSize` bytes (default 256 KiB).
    public func chunks(chunkSize: Int = 256 << 10) -> BlobChunks {
        BlobChunks(path: fileURL.path(percentEncoded: false), hash: hash, chunkSize: max(1, chunkSize))
    }

    /// All the bytes in memory. Prefer ``chunks(chunkSize:)`` for anything large.
    /// - Throws: ``AttachmentStore/Error/blobMissing(_:)`` when the file is gone.
    public func data() async throws -> Data {
        let (path, hash) = (fileURL.path(percentEncoded: false), self.hash)
        return try await BlockingPool.run {
            guard let data = FileManager.default.contents(atPath: path) else { throw AttachmentStore.Error.blobMissing(hash) }
            return data
        }
    }

    /// Copies the bytes to `destination`, checking their hash on the way, and only then
    /// renames the copy into place (an existing file there is replaced whole or not at all).
    /// - Throws: ``AttachmentStore/Error/hashMismatch(expected:actual:)`` when the stored copy is
    ///   damaged (nothing is written), ``AttachmentStore/Error/writeFailed(path:cause:)``.
    public func write(to destination: URL) async throws {
        let source = fileURL.path(percentEncoded: false)
        let target = destination.standardizedFileURL.path(percentEncoded: false)
        let expected = hash
        try await CancellationFlag.runCancellable { flag in
            try Self.copyVerified(from: source, to: target, expected: expected, cancellation: flag)
        }
    }

    private static func copyVerified(from source: String, to target: String, expected: BlobHash, cancellation: CancellationFlag) throws {
        let reader = try BlobFileReader(path: source, hash: expected)
        defer { reader.close() }
        let partial = target + ".attach-partial-\(getpid())"
        let output = open(partial, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o666)  // a copy for the user: their umask decides
        guard output >= 0 else { throw AttachmentStore.Error.writeFailed(path: target, cause: .system(SystemError("open"))) }
        var hasher = SHA256()
        do {
            defer { close(output) }
            while let chunk = try reader.read(maximum: StoreFolderBlobs.chunkSize) {
                try cancellation.check()
                hasher.update(data: chunk)
                try chunk.withUnsafeBytes { try POSIXFile.writeAll(output, $0) }
            }
            let actual = BlobHash(digest: hasher.finalize())
            guard actual == expected else { throw AttachmentStore.Error.hashMismatch(expected: expected, actual: actual) }
            try POSIXFile.sync(output)
            guard rename(partial, target) == 0 else { throw SystemError("rename") }
        } catch {
            unlink(partial)
            if let error = error as? SystemError { throw AttachmentStore.Error.writeFailed(path: target, cause: .system(error)) }
            throw error
        }
    }
}
