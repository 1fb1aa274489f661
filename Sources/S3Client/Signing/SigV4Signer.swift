import Crypto
import Foundation

/// Signs HTTP requests with AWS Signature Version 4 in the `Authorization` header.
///
/// The signer is a pure function of its inputs (no clock, no I/O), so it can be tested
/// against the published example signatures with a fixed date.
///
/// ```swift
/// let signer = SigV4Signer(accessKey: "AKID", secretKey: "SECRET", region: "us-east-1")
/// let headers = signer.sign(SigV4Signer.Request(method: "GET", path: "/bucket/photo.jpg",
///                                               headers: [("Host", "127.0.0.1:9000")],
///                                               payloadHash: SigV4Signer.emptyPayloadHash), at: .now)
/// ```
public struct SigV4Signer: Sendable {
    /// What is signed: the method, the encoded path, the query, the headers and the payload hash.
    public struct Request: Sendable {
        /// The HTTP method, e.g. `GET`.
        public var method: String
        /// The path exactly as sent, already percent-encoded (see ``S3URIEncoding``).
        public var path: String
        /// The query parameters, not encoded.
        public var query: [(name: String, value: String)]
        /// The headers to sign (`Host` among them); names in any case.
        public var headers: [(name: String, value: String)]
        /// The hex SHA-256 of the body, or ``SigV4Signer/unsignedPayload``.
        public var payloadHash: String

        /// A request to sign.
        public init(method: String, path: String, query: [(name: String, value: String)] = [],
                    headers: [(name: String, value: String)], payloadHash: String) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// The payload hash of a body sent without signing its bytes (a streamed upload).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The SHA-256 of the empty body, the payload hash of GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The access key id named in the credential scope.
    public let accessKey: String
    private let secretKey: String
    /// The session token of temporary credentials, sent and signed as `x-amz-security-token`.
    private let sessionToken: String?
    /// The region of the credential scope, e.g. `us-east-1`.
    public let region: String
    /// The service of the credential scope, `s3`.
    public let service: String

    /// A signer for `credentials` in `region` for `service`.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.init(accessKey: credentials.accessKeyID, secretKey: credentials.secretAccessKey,
                  sessionToken: credentials.sessionToken, region: region, service: service)
    }

    /// A signer for `accessKey`/`secretKey` (and the `sessionToken` of temporary credentials)
    /// in `region` for `service`.
    public init(accessKey: String, secretKey: String, sessionToken: String? = nil, region: String, service: String = "s3") {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// The headers to add to `request` signed at `date`: `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` for temporary credentials, and `Authorization`.
    public func sign(_ request: Request, at date: Date) -> [(name: String, value: String)] {
        let stamp = SigV4Timestamp(date)
        var signed = request
        var added = [("x-amz-date", stamp.dateTime), ("x-amz-content-sha256", request.payloadHash)]
        if let sessionToken { added.append(("x-amz-security-token", sessionToken)) }
        signed.headers += added
        let canonical = canonicalRequest(signed)
        let signature = signature(of: stringToSign(canonicalRequest: canonical.text, at: stamp), on: stamp.date)
        let authorization = "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope(stamp.date)), "
            + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// The canonical request of `request` and its `SignedHeaders` list. `request.headers`
    /// must already hold `x-amz-date` and `x-amz-content-sha256` where they are signed.
    func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        var merged: [String: [String]] = [:]
        for (name, value) in request.headers {
            merged[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [
            request.method, request.path.isEmpty ? "/" : request.path,
            S3URIEncoding.canonicalQuery(request.query),
            canonicalHeaders, signedHeaders, request.payloadHash,
        ].joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// The string to sign for a canonical request at `stamp`.
    func stringToSign(canonicalRequest: String, at stamp: SigV4Timestamp) -> String {
        let hash = SHA256.hash(data: Data(canonicalRequest.utf8)).hexString
        return ["AWS4-HMAC-SHA256", stamp.dateTime, scope(stamp.date), hash].joined(separator: "\n")
    }

    /// The hex signature of `stringToSign` with the key derived for `date` (`YYYYMMDD`).
    func signature(of stringToSign: String, on date: String) -> String {
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [date, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Data(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)).hexString
    }

    private func scope(_ date: String) -> String { "\(date)/\(region)/\(service)/aws4_request" }

    /// A header value with leading and trailing spaces removed and inner runs of spaces collapsed.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }
}
