import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

extension S3Client {
    /// Stores `data` under `key`, replacing any object there.
    ///
    /// The body is signed with its SHA-256 and sent with `Content-MD5`, so the server refuses
    /// bytes changed on the way. For files, use ``putObject(key:fileAt:)``, which streams.
    /// - Returns: the object's ETag, without quotes.
    /// - Throws: ``S3ClientError``, or `CancellationError`.
    @discardableResult
    public func putObject(key: String, data: some Collection<UInt8> & Sendable) async throws -> String {
        let buffer = ByteBuffer(bytes: data)
        let md5 = Data(buffer.withUnsafeReadableBytes { Insecure.MD5.hash(data: $0) }).base64EncodedString()
        let response = try await send(S3Request(
            .PUT, key: key,
            headers: [("Content-MD5", md5)],
            payload: .bytes(buffer)
        ))
        try await response.body.discard()
        return try Self.etag(of: response, key: key)
    }

    /// The size and ETag of the object under `key`, or nil when there is none.
    /// - Throws: ``S3ClientError`` (a missing bucket reads as a missing key), or `CancellationError`.
    public func headObject(key: String) async throws -> S3ObjectInfo? {
        let response: HTTPClientResponse
        do {
            response = try await send(S3Request(.HEAD, key: key))
        } catch S3ClientError.noSuchKey {
            return nil
        }
        try await response.body.discard()
        guard let size = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }) else {
            throw S3ClientError.invalidResponse("HEAD \(key) answered without a Content-Length")
        }
        return S3ObjectInfo(key: key, size: size, etag: try Self.etag(of: response, key: key))
    }

    /// Deletes the object under `key`. Deleting a key that holds nothing succeeds, as in S3.
    /// - Throws: ``S3ClientError``, or `CancellationError`.
    public func deleteObject(key: String) async throws {
        do {
            let response = try await send(S3Request(.DELETE, key: key))
            try await response.body.discard()
        } catch S3ClientError.noSuchKey {
            return
        }
    }

    /// The bytes of the object under `key` (or of `range` of it), streamed as they arrive.
    ///
    /// The answer is returned once the server has sent its headers; iterate
    /// ``S3ObjectDownload/body`` to receive the bytes, with bounded memory. A request that
    /// fails before the headers is retried; a body cut midway throws from the iteration.
    /// - Throws: ``S3ClientError/noSuchKey(bucket:key:)``, another ``S3ClientError`` (416 for
    ///   a range past the end), or `CancellationError`.
    public func getObject(key: String, range: S3ByteRange? = nil) async throws -> S3ObjectDownload {
        var headers: [(name: String, value: String)] = []
        if let range { headers.append(("Range", range.headerValue)) }
        let response = try await send(S3Request(.GET, key: key, headers: headers))
        let length = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
        let etag = try? Self.etag(of: response, key: key)
        return S3ObjectDownload(
            key: key, contentLength: length, etag: etag,
            contentRange: response.headers.first(name: "Content-Range"),
            body: S3ObjectBody(key: key, endpoint: configuration.endpoint.absoluteString,
                               expectedLength: length, body: response.body)
        )
    }

    /// The ETag header of `response`, quotes removed.
    static func etag(of response: HTTPClientResponse, key: String) throws(S3ClientError) -> String {
        guard let etag = response.headers.first(name: "ETag") else {
            throw .invalidResponse("the answer for \(key) has no ETag")
        }
        return etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}

extension HTTPClientResponse.Body {
    /// Reads and drops the body, so the connection can be reused.
    func discard() async throws {
        for try await _ in self {}
    }
}
