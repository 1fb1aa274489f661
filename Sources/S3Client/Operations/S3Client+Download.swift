import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

extension S3Client {
    /// Downloads the object under `key` (or `range` of it) into a new file at `path`,
    /// streaming with bounded memory, and flushes the file to disk.
    ///
    /// The file is created or truncated; if the download fails it is removed, so a file at
    /// `path` after a successful return holds exactly the object's bytes.
    /// - Returns: the number of bytes written.
    /// - Throws: ``S3ClientError/noSuchKey(bucket:key:)``, ``S3ClientError/fileError(path:reason:)``,
    ///   another ``S3ClientError``, or `CancellationError`.
    @discardableResult
    public func getObject(key: String, range: S3ByteRange? = nil, toFile path: String) async throws -> Int64 {
        let download = try await getObject(key: key, range: range)
        let handle: NIOFileHandle
        do {
            handle = try await NIOThreadPool.singleton.runIfActive {
                try NIOFileHandle(_deprecatedPath: path, mode: .write,
                                  flags: .posix(flags: O_CREAT | O_TRUNC, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH))
            }
        } catch {
            throw S3ClientError.fileError(path: path, reason: "cannot create it (\(error))")
        }
        do {
            var written: Int64 = 0
            for try await chunk in download.body {
                do {
                    try await fileIO.write(fileHandle: handle, buffer: chunk)
                } catch {
                    throw S3ClientError.fileError(path: path, reason: "writing at byte \(written) failed (\(error))")
                }
                written += Int64(chunk.readableBytes)
            }
            try await NIOThreadPool.singleton.runIfActive {
                try handle.withUnsafeFileDescriptor { descriptor in
                    guard fsync(descriptor) == 0 else { throw S3ClientError.fileError(path: path, reason: "fsync failed (errno \(errno))") }
                }
                try handle.close()
            }
            return written
        } catch {
            try? handle.close()
            do {
                try await fileIO.remove(path: path)
            } catch let cleanup {
                // The download's own error is what the caller needs; the leftover is only logged.
                logger.warning("a failed download left its partial file", metadata: ["path": "\(path)", "error": "\(cleanup)"])
            }
            throw error
        }
    }
}
