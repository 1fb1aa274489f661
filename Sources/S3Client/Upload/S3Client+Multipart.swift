import Foundation
import AsyncHTTPClient
import NIOCore

extension S3Client {
    /// S3's smallest part (every part but the last): 5 MiB.
    public static let minimumPartSize: Int64 = 5 << 20
    /// S3's largest number of parts in one upload.
    public static let maximumPartCount: Int64 = 10_000

    /// Uploads `file` (`size` bytes) in parts: create, upload each part in order, complete;
    /// on any failure, cancellation included, the upload is aborted before the error is thrown.
    func multipartUpload(_ file: UploadSource, size: Int64, key: String) async throws -> S3Upload {
        let partSize = configuration.partSize
        guard partSize >= Self.minimumPartSize else {
            throw S3ClientError.invalidConfiguration("the part size \(partSize) is under S3's minimum of \(Self.minimumPartSize) bytes (5 MiB)")
        }
        let partCount = (size + partSize - 1) / partSize
        guard partCount <= Self.maximumPartCount else {
            throw S3ClientError.invalidConfiguration("\(file.path) needs \(partCount) parts of \(partSize) bytes; S3 allows \(Self.maximumPartCount): raise partSize")
        }
        let uploadID = try await createMultipartUpload(key: key)
        do {
            var parts: [(number: Int, etag: String)] = []
            var offset: Int64 = 0
            while offset < size {
                let range = offset..<min(offset + partSize, size)
                let number = parts.count + 1
                let etag = try await upload(file, range: range, key: key,
                                            query: [("partNumber", "\(number)"), ("uploadId", uploadID)])
                parts.append((number, etag))
                offset = range.upperBound
            }
            let etag = try await completeMultipartUpload(key: key, uploadID: uploadID, parts: parts)
            return try finished(file, key: key, size: size, etag: etag, partCount: parts.count)
        } catch {
            // A fresh task, so that the abort is sent even when this one was cancelled.
            await Task { await self.abortMultipartUpload(key: key, uploadID: uploadID) }.value
            throw error
        }
    }

    /// Starts a multipart upload of `key` and returns its upload id.
    private func createMultipartUpload(key: String) async throws -> String {
        let response = try await send(S3Request(.POST, key: key, query: [("uploads", "")]))
        let root = try await Self.xml(of: response)
        guard let uploadID = root.text(of: "UploadId"), !uploadID.isEmpty else {
            throw S3ClientError.invalidResponse("CreateMultipartUpload of \(key) answered no UploadId")
        }
        return uploadID
    }

    /// Joins the uploaded parts into the object and returns its ETag.
    private func completeMultipartUpload(key: String, uploadID: String, parts: [(number: Int, etag: String)]) async throws -> String {
        let xml = "<CompleteMultipartUpload>"
            + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\"\(Self.escapeXML($0.etag))\"</ETag></Part>" }.joined()
            + "</CompleteMultipartUpload>"
        let response = try await send(S3Request(.POST, key: key, query: [("uploadId", uploadID)],
                                                payload: .bytes(ByteBuffer(string: xml))))
        let root = try await Self.xml(of: response)
        // S3 may answer 200 and report a failure in the body.
        if root.name == "Error" {
            throw S3ErrorDetails(status: 200, code: root.text(of: "Code"), message: root.text(of: "Message"))
                .error(bucket: configuration.bucket, key: key)
        }
        guard let etag = root.text(of: "ETag") else {
            throw S3ClientError.invalidResponse("CompleteMultipartUpload of \(key) answered no ETag")
        }
        return etag.trimmingCharacters(in: .init(charactersIn: "\""))
    }

    /// Aborts an upload so its parts are deleted; failures are logged, not thrown.
    private func abortMultipartUpload(key: String, uploadID: String) async {
        do {
            let response = try await send(S3Request(.DELETE, key: key, query: [("uploadId", uploadID)]))
            try await response.body.discard()
            logger.debug("aborted multipart upload", metadata: ["key": "\(key)", "uploadId": "\(uploadID)"])
        } catch {
            logger.warning("could not abort a multipart upload; its parts stay until the bucket's lifecycle removes them",
                           metadata: ["key": "\(key)", "uploadId": "\(uploadID)", "error": "\(error)"])
        }
    }

    /// The XML body of a successful response (at most 16 MiB).
    static func xml(of response: HTTPClientResponse) async throws -> S3XMLElement {
        let body = try await response.body.collect(upTo: 16 << 20)
        return try S3XMLElement.parse(Data(body.readableBytesView))
    }

    static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
