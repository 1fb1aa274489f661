import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@testable import S3Client
import Testing

/// How an `S3Client` turns an operation into an HTTP request without sending it: the
/// path-style path (an endpoint's own path kept in front, bucket and key encoded), the URL and
/// `Host` header (default ports left out), the canonical query, the payload hash each kind of
/// body is signed with, which requests may be retried, and a signature that the receiving end
/// can verify from what it receives.
@Suite("S3 requests: paths, hosts, queries and signatures")
struct S3RequestBuildingTests {
    static let credentials = S3Credentials(accessKeyID: "AKIAREQUEST", secretAccessKey: "RequestSecret")

    static func client(endpoint: String, bucket: String = "photos") throws -> S3Client {
        let url = try #require(URL(string: endpoint))
        return S3Client(configuration: try S3Configuration(endpoint: url, bucket: bucket, credentials: .fixed(credentials)))
    }

    static func header(_ name: String, of request: HTTPClientRequest) -> String? {
        request.headers.first(name: name)
    }

    /// What an endpoint would receive for `request`, for `SignatureCheck`.
    static func received(_ request: HTTPClientRequest) throws -> FakeAWSEndpoint.Request {
        let url = try #require(URL(string: request.url))
        let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return FakeAWSEndpoint.Request(method: request.method.rawValue, uri: url.path(percentEncoded: true) + query,
                                       headers: request.headers.map { ($0.name, $0.value) }, body: "")
    }

    // MARK: - Paths

    @Test("keys are encoded in the path, their slashes kept, behind the bucket", arguments: [
        ("photo.jpg", "/photos/photo.jpg"),
        ("a b/c+d.jpg", "/photos/a%20b/c%2Bd.jpg"),
        ("sha256/ab/cd", "/photos/sha256/ab/cd"),
        ("/leading", "/photos//leading"),
        ("trailing/", "/photos/trailing/"),
        ("ünï?#.jpg", "/photos/%C3%BCn%C3%AF%3F%23.jpg"),
        ("..", "/photos/.."),
    ])
    func keyPaths(key: String, path: String) throws {
        #expect(try Self.client(endpoint: "http://127.0.0.1:9000").path(for: key) == path)
    }

    @Test("a request on the bucket itself has the bucket's path only")
    func bucketPath() throws {
        #expect(try Self.client(endpoint: "http://127.0.0.1:9000").path(for: nil) == "/photos")
    }

    @Test("an endpoint's own path is kept in front of the bucket, with or without its trailing slash", arguments: [
        ("http://proxy.internal/s3", "/s3/photos/k"),
        ("http://proxy.internal/s3/", "/s3/photos/k"),
        ("http://proxy.internal/a/b/", "/a/b/photos/k"),
        ("http://proxy.internal/my%20s3", "/my%20s3/photos/k"),
        ("http://proxy.internal/", "/photos/k"),
        ("http://proxy.internal", "/photos/k"),
    ])
    func endpointPaths(endpoint: String, path: String) throws {
        #expect(try Self.client(endpoint: endpoint).path(for: "k") == path)
    }

    @Test("bucket names are encoded, slashes included, though a valid name needs none of it")
    func bucketEncoding() throws {
        #expect(try Self.client(endpoint: "http://h", bucket: "my.bucket-1").path(for: "k") == "/my.bucket-1/k")
        #expect(try Self.client(endpoint: "http://h", bucket: "odd bucket").path(for: nil) == "/odd%20bucket")
    }

    // MARK: - URL and Host

    @Test("the Host header and URL leave out the scheme's default port and keep any other", arguments: [
        ("http://s3.local:80", "s3.local", "http://s3.local/photos/k"),
        ("https://s3.local:443", "s3.local", "https://s3.local/photos/k"),
        ("http://s3.local", "s3.local", "http://s3.local/photos/k"),
        ("http://127.0.0.1:9000", "127.0.0.1:9000", "http://127.0.0.1:9000/photos/k"),
        ("https://s3.local:80", "s3.local:80", "https://s3.local:80/photos/k"),
        ("http://s3.local:443", "s3.local:443", "http://s3.local:443/photos/k"),
        ("HTTP://s3.local:80", "s3.local", "http://s3.local/photos/k"),
    ])
    func hostAndURL(endpoint: String, host: String, url: String) throws {
        let request = try Self.client(endpoint: endpoint).makeHTTPRequest(S3Request(.GET, key: "k"), signedWith: Self.credentials)
        #expect(Self.header("Host", of: request) == host)
        #expect(request.url == url)
    }

    @Test("the query is appended in canonical order and encoding; none means no question mark")
    func queryInURL() throws {
        let s3 = try Self.client(endpoint: "http://h:9000")
        let listing = s3.makeHTTPRequest(S3Request(.GET, key: nil, query: [
            ("prefix", "sha256/a b"), ("list-type", "2"), ("continuation-token", "1/2+3="), ("max-keys", "1000"),
        ]), signedWith: Self.credentials)
        #expect(listing.url == "http://h:9000/photos?continuation-token=1%2F2%2B3%3D&list-type=2&max-keys=1000&prefix=sha256%2Fa%20b")
        let plain = s3.makeHTTPRequest(S3Request(.GET, key: "k"), signedWith: Self.credentials)
        #expect(!plain.url.contains("?"))
        let uploads = s3.makeHTTPRequest(S3Request(.POST, key: "big", query: [("uploads", "")]), signedWith: Self.credentials)
        #expect(uploads.url == "http://h:9000/photos/big?uploads=")
    }

    // MARK: - Bodies and headers

    @Test("an empty body is signed with the empty hash, bytes with their SHA-256, a stream as UNSIGNED-PAYLOAD")
    func payloadHashes() throws {
        let s3 = try Self.client(endpoint: "http://h:9000")
        let empty = s3.makeHTTPRequest(S3Request(.DELETE, key: "k"), signedWith: Self.credentials)
        #expect(Self.header("x-amz-content-sha256", of: empty) == SigV4Signer.emptyPayloadHash)
        let bytes = s3.makeHTTPRequest(S3Request(.PUT, key: "k", payload: .bytes(ByteBuffer(string: "abc"))), signedWith: Self.credentials)
        #expect(Self.header("x-amz-content-sha256", of: bytes) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let stream = s3.makeHTTPRequest(S3Request(.PUT, key: "k", payload: .stream { .bytes(ByteBuffer(string: "abc")) }),
                                        signedWith: Self.credentials)
        #expect(Self.header("x-amz-content-sha256", of: stream) == SigV4Signer.unsignedPayload)
    }

    @Test("the operation's own headers are sent and signed next to Host and the x-amz ones")
    func operationHeadersSigned() throws {
        let s3 = try Self.client(endpoint: "http://h:9000")
        let request = s3.makeHTTPRequest(S3Request(.GET, key: "k", headers: [("Range", "bytes=0-9")]), signedWith: Self.credentials)
        #expect(Self.header("Range", of: request) == "bytes=0-9")
        #expect(request.method == .GET)
        let authorization = try #require(Self.header("Authorization", of: request))
        #expect(authorization.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAREQUEST/"))
        #expect(authorization.contains("/us-east-1/s3/aws4_request, "))
    }

    @Test("a session token is sent and signed")
    func sessionTokenSent() throws {
        let s3 = try Self.client(endpoint: "http://h:9000")
        let temporary = S3Credentials(accessKeyID: "ASIA", secretAccessKey: "s", sessionToken: "the-token")
        let request = s3.makeHTTPRequest(S3Request(.HEAD, key: "k"), signedWith: temporary)
        #expect(Self.header("x-amz-security-token", of: request) == "the-token")
        #expect(Self.header("Authorization", of: request)?.contains(";x-amz-security-token, ") == true)
    }

    @Test("the receiving end recomputes the same signature from the request as sent", arguments: [
        ("http://127.0.0.1:9000", "a b/ünï+c.jpg"),
        ("http://proxy.internal/s3/", "k"),
        ("https://s3.example.com:443", "sha256/00ff"),
    ])
    func signatureVerifies(endpoint: String, key: String) throws {
        let s3 = try Self.client(endpoint: endpoint)
        let request = s3.makeHTTPRequest(S3Request(.PUT, key: key, headers: [("Content-MD5", "kAFQmDzST7DWlj99KOF/cg==")],
                                                   payload: .bytes(ByteBuffer(string: "abc"))), signedWith: Self.credentials)
        let check = try #require(SignatureCheck.verify(try Self.received(request), secret: "RequestSecret"))
        #expect(check.accessKey == "AKIAREQUEST")
        #expect(check.valid)
        #expect(check.signedHeaders.contains("content-md5"))
        let wrong = try #require(SignatureCheck.verify(try Self.received(request), secret: "OtherSecret"))
        #expect(!wrong.valid)
    }

    // MARK: - Retries

    @Test("every method but POST may be sent again", arguments: [
        (HTTPMethod.GET, true), (.HEAD, true), (.PUT, true), (.DELETE, true), (.POST, false),
    ])
    func idempotence(method: HTTPMethod, idempotent: Bool) {
        #expect(S3Request(method, key: "k").idempotent == idempotent)
    }

    // MARK: - XML escaping

    @Test("text put into request XML has its markup characters escaped, & first")
    func escapeXML() {
        #expect(S3Client.escapeXML("plain-region-1") == "plain-region-1")
        #expect(S3Client.escapeXML("a&b<c>d\"e") == "a&amp;b&lt;c&gt;d&quot;e")
        #expect(S3Client.escapeXML("&lt;") == "&amp;lt;", "already escaped text is escaped again, not trusted")
    }

    @Test("listing timestamps are read with or without fractional seconds, and anything else is no date", arguments: [
        ("2024-02-29T23:59:58.125Z", Optional(1_709_251_198.125)),
        ("2024-02-29T23:59:58Z", 1_709_251_198),
        ("2024-02-29T23:59:58.000Z", 1_709_251_198),
        ("2024-03-01T01:59:58+02:00", 1_709_251_198),
        ("2024-02-29 23:59:58", nil),
        ("yesterday", nil),
        ("", nil),
    ] as [(String, Double?)])
    func listingTimestamps(text: String, seconds: Double?) {
        #expect(S3Client.parseTimestamp(text)?.timeIntervalSince1970 == seconds)
    }
}
