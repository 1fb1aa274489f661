/// Everything an ``S3Client`` operation can fail with, with the context to act on it.
public enum S3ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bucket holds no object under this key (404 `NoSuchKey`).
    case noSuchKey(bucket: String, key: String)
    /// The bucket does not exist (404 `NoSuchBucket`).
    case noSuchBucket(String)
    /// The server refused the credentials or the signature (403: `AccessDenied`,
    /// `SignatureDoesNotMatch`, `InvalidAccessKeyId`, ...). `s3Code` is S3's code, when it sent one.
    case accessDenied(s3Code: String?, message: String?)
    /// Any other answer that is not a success, with S3's error code and message when the body had them.
    case badStatus(code: Int, s3Code: String?, message: String?)
    /// No answer from the endpoint (connection refused, reset or timed out) after `attempts` tries.
    case unreachable(endpoint: String, attempts: Int, underlying: String)
    /// The configuration cannot work (a missing variable, a malformed URL, a part size under 5 MiB).
    case invalidConfiguration(String)
    /// No credentials could be had from `source` (the AWS default chain, a profile, STS, a
    /// metadata endpoint): it is not configured, unreachable, refused, or answered nonsense.
    case credentialsUnavailable(source: String, reason: String)
    /// The server answered success with something this client cannot read (malformed XML, no ETag).
    case invalidResponse(String)
    /// A file to upload could not be opened or read, or a download could not be written.
    case fileError(path: String, reason: String)
    /// The bytes the server stored do not match what was sent (the ETag is not the MD5 of the
    /// bytes, or a download ended early); nothing should reference the object.
    case corruptTransfer(key: String, reason: String)

    /// What went wrong and what to check, in one line.
    public var description: String {
        switch self {
        case .noSuchKey(let bucket, let key):
            return "no object \"\(key)\" in bucket \(bucket)"
        case .noSuchBucket(let bucket):
            return "the bucket \(bucket) does not exist; create it (S3Client.createBucketIfMissing) or check S3_BUCKET"
        case .accessDenied(let s3Code, let message):
            let detail = [s3Code, message].compactMap { $0 }.joined(separator: ": ")
            return "the S3 server refused the request (\(detail.isEmpty ? "403" : detail)); check the credentials (S3_ACCESS_KEY and S3_SECRET_KEY, or the AWS credential chain) and S3_REGION"
        case .badStatus(let code, let s3Code, let message):
            let detail = [s3Code, message].compactMap { $0 }.joined(separator: ": ")
            return "the S3 server answered \(code)" + (detail.isEmpty ? "" : " (\(detail))")
        case .unreachable(let endpoint, let attempts, let underlying):
            return "cannot reach the S3 server at \(endpoint) (\(attempts) attempt\(attempts == 1 ? "" : "s"): \(underlying)); is it running, and is the endpoint right (endpoint=, S3_ENDPOINT, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else the region's AWS endpoint)?"
        case .invalidConfiguration(let reason):
            return "invalid S3 configuration: \(reason)"
        case .credentialsUnavailable(let source, let reason):
            return "no S3 credentials from \(source): \(reason)"
        case .invalidResponse(let reason):
            return "unreadable answer from the S3 server: \(reason)"
        case .fileError(let path, let reason):
            return "\(path): \(reason)"
        case .corruptTransfer(let key, let reason):
            return "the transfer of \"\(key)\" was corrupted: \(reason)"
        }
    }
}
