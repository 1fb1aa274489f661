import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Original bytes as files in a directory outside the store folder — typically a filesystem
/// several servers mount (NFS) — laid out like a store's own: `<directory>/blobs/sha256/ab/cd/<hash>`,
/// staged through `<directory>/tmp/`.
///
/// Uploads copy the file while hashing it, fsync it, check the hash and size, and rename it into
/// place read-only (content already there is not copied again); downloads copy and fsync. Like
/// every ``BlobObjectStore``, it leaves deciding what is referenced to the store's catalog.
public struct DirectoryBlobObjectStore: BlobObjectStore {
    /// The directory, absolute, without a trailing slash.
    public let directory: String
    private let files: StoreFolderBlobs

    /// The object store in `directory`. Nothing is created until the first upload, which makes
    /// its `blobs/` and `tmp/` folders when missing.
    public init(directory: URL) {
        let layout = StoreLayout(directory: directory)
        self.directory = layout.root
        self.files = StoreFolderBlobs(root: layout.root)
    }

    /// `file://<directory>`.
    public var location: String { "file://" + directory }

    public func upload(fileAt path: String, as hash: BlobHash, byteCount: Int64) async throws {
        let files = self.files
        let location = self.location
        try await CancellationFlag.runCancellable { flag in
            let staged: StagedBlob
            do {
                try POSIXFile.makeDirectories(files.temporaryDirectory)
                staged = try files.stage(fileAt: path, cancellation: flag)
            } catch let error as SystemError {
                throw BlobObjectStoreError.unavailable(operation: "upload blob \(hash.short)", location: location, cause: .init(error))
            } catch let error as AttachmentStore.Error {
                throw BlobObjectStoreError.unavailable(operation: "upload blob \(hash.short)", location: location, cause: .init(error))
            }
            defer { staged.release() }
            guard staged.hash == hash, staged.byteCount == byteCount else {
                throw BlobObjectStoreError.corrupt(hash, reason: "the copy holds \(staged.byteCount) bytes hashing to \(staged.hash)")
            }
            do {
                _ = try files.installFile(staged)
            } catch {
                throw BlobObjectStoreError.unavailable(operation: "upload blob \(hash.short)", location: location, cause: .init(error))
            }
        }
    }

    public func download(_ hash: BlobHash, toFile path: String) async throws {
        let source = files.path(for: hash)
        let location = self.location
        try await BlockingPool.run {
            do throws(SystemError) {
                try Self.copy(source, to: path)
            } catch {
                unlink(path)
                var failure = error
                if error.code == ENOENT {
                    // Missing only when the object itself is gone, not the directory we write to.
                    switch Result(catching: { () throws(SystemError) in try POSIXFile.status(source) }) {
                    case .success(nil): throw BlobObjectStoreError.missing(hash)
                    case .success: break
                    case .failure(let lookup): failure = lookup
                    }
                }
                throw BlobObjectStoreError.unavailable(operation: "download blob \(hash.short)", location: location, cause: .init(failure))
            }
        }
    }

    public func size(of hash: BlobHash) async throws -> Int64? {
        let path = files.path(for: hash)
        let location = self.location
        return try await BlockingPool.run {
            do throws(SystemError) {
                return try POSIXFile.status(path).map { Int64($0.st_size) }
            } catch {
                throw BlobObjectStoreError.unavailable(operation: "look up blob \(hash.short)", location: location, cause: .init(error))
            }
        }
    }

    public func delete(_ hash: BlobHash) async throws {
        let files = self.files
        let location = self.location
        try await BlockingPool.run {
            do {
                try files.remove(hash)
            } catch {
                throw BlobObjectStoreError.unavailable(operation: "delete blob \(hash.short)", location: location, cause: .init(error))
            }
        }
    }

    public func objects() -> AsyncThrowingStream<BlobObject, any Swift.Error> {
        let blobsDirectory = files.blobsDirectory
        return AsyncThrowingStream { continuation in
            // The walk blocks, so it runs on the blocking pool; this task ends with the stream.
            let task = Task {
                do {
                    for entry in try await BlockingPool.run({ BlobFileScan.files(in: blobsDirectory) }) {
                        continuation.yield(BlobObject(hash: entry.hash, byteCount: entry.byteCount, lastModified: entry.modified))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Copies `source` into a new file at `destination` and syncs it. Blocks.
    private static func copy(_ source: String, to destination: String) throws(SystemError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SystemError("open \(source)") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw SystemError("open \(destination)") }
        defer { close(output) }
        try POSIXFile.copyAll(from: input, to: output)
        try POSIXFile.sync(output)
    }
}
