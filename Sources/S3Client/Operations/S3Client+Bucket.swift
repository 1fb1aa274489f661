import AsyncHTTPClient
import NIOCore

extension S3Client {
    /// Creates the configured bucket unless it exists and this client can reach it.
    ///
    /// Outside `us-east-1` the request names the region as the location constraint.
    /// - Returns: true when the bucket was created, false when it was already there.
    /// - Throws: ``S3ClientError`` (`BucketAlreadyExists` as ``S3ClientError/badStatus(code:s3Code:message:)``
    ///   when another account owns the name), or `CancellationError`.
    @discardableResult
    public func createBucketIfMissing() async throws -> Bool {
        var payload = S3Request.Payload.empty
        if configuration.region != "us-east-1" {
            payload = .bytes(ByteBuffer(string: "<CreateBucketConfiguration><LocationConstraint>"
                + Self.escapeXML(configuration.region) + "</LocationConstraint></CreateBucketConfiguration>"))
        }
        do {
            let response = try await send(S3Request(.PUT, key: nil, payload: payload))
            try await response.body.discard()
            logger.info("created bucket", metadata: ["bucket": "\(configuration.bucket)"])
            return true
        } catch S3ClientError.badStatus(409, let s3Code, let message) {
            // Some servers (OpenStack Swift among them) answer BucketAlreadyExists to its owner too.
            if s3Code == "BucketAlreadyOwnedByYou" { return false }
            if try await bucketIsReachable() { return false }
            throw S3ClientError.badStatus(code: 409, s3Code: s3Code, message: message)
        }
    }

    /// Whether `HEAD` on the bucket succeeds.
    func bucketIsReachable() async throws -> Bool {
        do {
            let response = try await send(S3Request(.HEAD, key: nil))
            try await response.body.discard()
            return true
        } catch S3ClientError.badStatus(404, _, _), S3ClientError.noSuchBucket {
            return false
        }
    }
}
