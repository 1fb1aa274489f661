import AsyncHTTPClient
import NIOCore
import NIOPosix

extension S3Client {
    /// Uploads the file at `path` under `key`, streaming it from disk with bounded memory.
    ///
    /// Files up to ``S3Configuration/multipartThreshold`` bytes go in one PUT; larger ones in
    /// a multipart upload of ``S3Configuration/partSize`` parts, sent one after another and
    /// aborted if any step fails, so no half-uploaded object appears. Bodies are sent as
    /// `UNSIGNED-PAYLOAD`; each request's MD5 is checked against the ETag the server answers
    /// when that ETag is an MD5. The result carries the SHA-256 of the bytes sent.
    ///
    /// ```swift
    /// let upload = try await s3.putObject(key: "sha256/\(hash)", fileAt: path)
    /// guard upload.sha256 == hash else { ... }   // the file changed since it was hashed
    /// ```
    /// - Throws: ``S3ClientError/fileError(path:reason:)`` when the file cannot be read,
    ///   ``S3ClientError/corruptTransfer(key:reason:)`` when an ETag disagrees with the bytes
    ///   sent, another ``S3ClientError``, or `CancellationError`.
    public func putObject(key: String, fileAt path: String) async throws -> S3Upload {
        let handle: NIOFileHandle
        let size: Int64
        do {
            handle = try await NIOThreadPool.singleton.runIfActive {
                try NIOFileHandle(_deprecatedPath: path, mode: .read)
            }
            size = try await fileIO.readFileSize(fileHandle: handle)
        } catch {
            throw S3ClientError.fileError(path: path, reason: "cannot open it for reading (\(error))")
        }
        defer { try? handle.close() }
        let file = UploadSource(fileIO: fileIO, handle: handle, path: path, digests: UploadDigests())
        if size <= configuration.multipartThreshold {
            let etag = try await upload(file, range: 0..<size, key: key, query: [])
            return try finished(file, key: key, size: size, etag: etag, partCount: 0)
        }
        return try await multipartUpload(file, size: size, key: key)
    }

    /// Sends bytes `range` of `file` in one PUT (an object, or a part when `query` names one).
    /// - Returns: the ETag, checked against the MD5 of the bytes sent when it is one.
    func upload(_ file: UploadSource, range: Range<Int64>, key: String, query: [(name: String, value: String)]) async throws -> String {
        let request = S3Request(.PUT, key: key, query: query, payload: .stream {
            file.digests.beginRequest()
            return .stream(FileRangeBody(fileIO: file.fileIO, handle: file.handle, path: file.path, range: range,
                                         digests: file.digests),
                           length: .known(range.upperBound - range.lowerBound))
        })
        let response = try await send(request)
        try await response.body.discard()
        let etag = try Self.etag(of: response, key: key)
        let md5 = file.digests.requestMD5()
        if Self.isMD5(etag), etag.lowercased() != md5 {
            throw S3ClientError.corruptTransfer(key: key, reason: "the server's ETag \(etag) is not the MD5 \(md5) of bytes \(range) sent")
        }
        return etag
    }

    /// The result of an upload whose bytes have all been sent.
    func finished(_ file: UploadSource, key: String, size: Int64, etag: String, partCount: Int) throws -> S3Upload {
        guard let sha256 = file.digests.fileSHA256(size: size) else {
            throw S3ClientError.fileError(path: file.path, reason: "not every byte of the file was read")
        }
        logger.debug("uploaded object", metadata: ["key": "\(key)", "bytes": "\(size)", "parts": "\(partCount)"])
        return S3Upload(key: key, size: size, etag: etag, sha256: sha256, partCount: partCount)
    }

    private static func isMD5(_ etag: String) -> Bool {
        etag.utf8.count == 32 && etag.utf8.allSatisfy { $0.isHexDigit }
    }
}

/// An open file being uploaded, and the hashes of what has been sent from it.
struct UploadSource: Sendable {
    let fileIO: NonBlockingFileIO
    let handle: NIOFileHandle
    let path: String
    let digests: UploadDigests
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
