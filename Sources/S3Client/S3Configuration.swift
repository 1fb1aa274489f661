import Foundation

/// Where an ``S3Client`` sends its requests, and how it signs, splits and retries them.
///
/// Requests name the bucket in the path (`ENDPOINT/BUCKET/KEY`, which every S3-compatible
/// server accepts) or in the host (`BUCKET.HOST/KEY`, AWS's form) as ``addressing`` says, and
/// are signed with AWS Signature Version 4. The secret key never appears in ``description``.
///
/// ```swift
/// let configuration = try S3Configuration.fromEnvironment()   // S3_ENDPOINT, S3_BUCKET, ...
/// let s3 = S3Client(configuration: configuration)
/// ```
public struct S3Configuration: Sendable, Equatable, CustomStringConvertible {
    /// The server's base URL, `http` or `https`, e.g. `http://127.0.0.1:59000`. A path in it
    /// (a server behind a reverse proxy at `/s3`) is kept in front of the bucket.
    public var endpoint: URL
    /// The bucket every operation addresses.
    public var bucket: String
    /// The signing region. Default `us-east-1`.
    public var region: String
    /// Where the credentials requests are signed with come from: fixed keys, or the AWS
    /// default chain (environment, web identity, shared profile, container, instance metadata).
    public var credentials: S3CredentialSource
    /// Files larger than this many bytes are uploaded in parts by
    /// ``S3Client/putObject(key:fileAt:)``. Default 16 MiB.
    public var multipartThreshold: Int64 = 16 << 20
    /// The size of each part of a multipart upload, in bytes (every part but the last).
    /// Default 8 MiB; S3 refuses parts under 5 MiB and uploads of more than 10,000 parts.
    public var partSize: Int64 = 8 << 20
    /// How failed idempotent requests are retried. Default: 4 attempts.
    public var retry: S3RetryPolicy = S3RetryPolicy()
    /// The longest one request may take, body included, before it fails. Default 5 minutes.
    public var requestTimeout: Duration = .seconds(300)
    /// Whether the bucket goes in the path or in the host. Default ``S3Addressing/path``;
    /// ``fromEnvironment(_:bucket:)`` chooses virtual-hosted for AWS (``S3Addressing/automatic(bucket:endpointHost:)``).
    public var addressing: S3Addressing = .path
    /// The certificate authorities trusted for an `https` endpoint instead of the system's;
    /// `nil` trusts the system's.
    public var trustedCertificates: S3TrustedCertificates?

    /// A configuration for `bucket` on `endpoint` signed with fixed keys.
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` when the endpoint is not an
    ///   absolute `http(s)` URL with a host, or the bucket or a key is empty.
    public init(endpoint: URL, bucket: String, region: String = "us-east-1", accessKey: String, secretKey: String) throws(S3ClientError) {
        guard !accessKey.isEmpty, !secretKey.isEmpty else {
            throw .invalidConfiguration("the access key and the secret key must both be set (S3_ACCESS_KEY, S3_SECRET_KEY)")
        }
        try self.init(endpoint: endpoint, bucket: bucket, region: region,
                      credentials: .fixed(S3Credentials(accessKeyID: accessKey, secretAccessKey: secretKey)))
    }

    /// A configuration for `bucket` on `endpoint` with credentials from `credentials`.
    /// - Throws: ``S3ClientError/invalidConfiguration(_:)`` when the endpoint is not an
    ///   absolute `http(s)` URL with a host, or the bucket or the region is empty.
    public init(endpoint: URL, bucket: String, region: String = "us-east-1", credentials: S3CredentialSource) throws(S3ClientError) {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = endpoint.host(), !host.isEmpty else {
            throw .invalidConfiguration("the endpoint \(endpoint.absoluteString) is not an http(s) URL with a host, e.g. http://127.0.0.1:9000")
        }
        guard !bucket.isEmpty, !bucket.contains("/") else {
            throw .invalidConfiguration("the bucket name \"\(bucket)\" is empty or contains a slash")
        }
        guard !region.isEmpty else { throw .invalidConfiguration("the region is empty (S3_REGION, e.g. us-east-1)") }
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.credentials = credentials
    }

    /// The endpoint, bucket, region and access key (or credential source); never a secret.
    public var description: String {
        "s3://\(bucket) at \(endpoint.absoluteString) (region \(region), \(credentials)"
            + (addressing == .virtualHosted ? ", virtual-hosted" : "")
            + (trustedCertificates.map { ", \($0)" } ?? "") + ")"
    }
}
