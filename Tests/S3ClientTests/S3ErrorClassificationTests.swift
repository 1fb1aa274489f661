import Foundation
import NIOCore
@testable import S3Client
import Testing

/// What an S3 error answer becomes: `S3ErrorDetails` reading the status and error document
/// (or ignoring a body that is not one), its mapping to a typed `S3ClientError` by code and
/// status, the one-line descriptions of every error, and the retry policy's edges (attempt
/// bounds, backoff caps far out, jitter bounds, retryable statuses not covered elsewhere).
@Suite("S3 errors: classification, descriptions and retry edges")
struct S3ErrorClassificationTests {
    // MARK: - Reading error documents

    @Test("an error document gives its Code and Message; other fields are ignored")
    func errorDocument() {
        let details = S3ErrorDetails(status: 404, body: ByteBuffer(string: """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>\
            <Key>a b.jpg</Key><RequestId>4442587FB7D0A2F9</RequestId></Error>
            """))
        #expect(details == S3ErrorDetails(status: 404, code: "NoSuchKey", message: "The specified key does not exist."))
    }

    @Test("an error document in S3's namespace reads the same")
    func namespacedErrorDocument() {
        let details = S3ErrorDetails(status: 503, body: ByteBuffer(string:
            #"<Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Code>SlowDown</Code><Message>Reduce</Message></Error>"#))
        #expect(details.code == "SlowDown")
        #expect(details.message == "Reduce")
    }

    @Test("an error document without a Message has a code and no message")
    func codeOnly() {
        let details = S3ErrorDetails(status: 409, body: ByteBuffer(string: "<Error><Code>BucketAlreadyExists</Code></Error>"))
        #expect(details == S3ErrorDetails(status: 409, code: "BucketAlreadyExists", message: nil))
    }

    @Test("a body that is not an S3 error document gives no code or message", arguments: [
        "",
        "<html><body><h1>502 Bad Gateway</h1></body></html>",
        "<ListBucketResult><Name>b</Name></ListBucketResult>",
        "Service Unavailable",
        "<Error><Code>Truncated",
        "{\"code\":\"NoSuchKey\"}",
    ])
    func notAnErrorDocument(body: String) {
        let details = S3ErrorDetails(status: 502, body: ByteBuffer(string: body))
        #expect(details == S3ErrorDetails(status: 502, code: nil, message: nil))
    }

    @Test("no body at all gives no code or message")
    func noBody() {
        #expect(S3ErrorDetails(status: 500, body: nil) == S3ErrorDetails(status: 500, code: nil, message: nil))
    }

    // MARK: - Typed errors

    @Test("S3's code decides the error where it names one, whatever the status", arguments: [
        (404, "NoSuchKey", "k", S3ClientError.noSuchKey(bucket: "b", key: "k")),
        (200, "NoSuchKey", "k", .noSuchKey(bucket: "b", key: "k")),
        (404, "NoSuchBucket", "k", .noSuchBucket("b")),
        (404, "NoSuchBucket", nil, .noSuchBucket("b")),
        (400, "AccessDenied", "k", .accessDenied(s3Code: "AccessDenied", message: "m")),
        (400, "SignatureDoesNotMatch", nil, .accessDenied(s3Code: "SignatureDoesNotMatch", message: "m")),
        (403, "InvalidAccessKeyId", "k", .accessDenied(s3Code: "InvalidAccessKeyId", message: "m")),
        (403, "RequestTimeTooSkewed", "k", .accessDenied(s3Code: "RequestTimeTooSkewed", message: "m")),
        (404, "NoSuchUpload", "k", .badStatus(code: 404, s3Code: "NoSuchUpload", message: "m")),
        (409, "BucketAlreadyExists", nil, .badStatus(code: 409, s3Code: "BucketAlreadyExists", message: "m")),
        (500, "InternalError", "k", .badStatus(code: 500, s3Code: "InternalError", message: "m")),
        (200, "InternalError", "k", .badStatus(code: 200, s3Code: "InternalError", message: "m")),
    ] as [(Int, String, String?, S3ClientError)])
    func byCode(status: Int, code: String, key: String?, expected: S3ClientError) {
        #expect(S3ErrorDetails(status: status, code: code, message: "m").error(bucket: "b", key: key) == expected)
    }

    @Test("without a code, 404 on a key is a missing key, 404 on the bucket a bad status, and 403 access denied", arguments: [
        (404, "k", S3ClientError.noSuchKey(bucket: "b", key: "k")),
        (404, nil, .badStatus(code: 404, s3Code: nil, message: nil)),
        (403, "k", .accessDenied(s3Code: nil, message: nil)),
        (403, nil, .accessDenied(s3Code: nil, message: nil)),
        (400, "k", .badStatus(code: 400, s3Code: nil, message: nil)),
        (503, nil, .badStatus(code: 503, s3Code: nil, message: nil)),
    ] as [(Int, String?, S3ClientError)])
    func byStatus(status: Int, key: String?, expected: S3ClientError) {
        #expect(S3ErrorDetails(status: status, code: nil, message: nil).error(bucket: "b", key: key) == expected)
    }

    @Test("NoSuchKey on a request without a key names an empty key")
    func noSuchKeyWithoutKey() {
        #expect(S3ErrorDetails(status: 404, code: "NoSuchKey", message: nil).error(bucket: "b", key: nil)
            == .noSuchKey(bucket: "b", key: ""))
    }

    // MARK: - Descriptions

    @Test("every error describes itself in one line with what to check", arguments: [
        (S3ClientError.noSuchKey(bucket: "photos", key: "a b.jpg"), "no object \"a b.jpg\" in bucket photos"),
        (.noSuchBucket("photos"), "the bucket photos does not exist; create it (S3Client.createBucketIfMissing) or check S3_BUCKET"),
        (.badStatus(code: 500, s3Code: nil, message: nil), "the S3 server answered 500"),
        (.badStatus(code: 503, s3Code: "SlowDown", message: "Reduce"), "the S3 server answered 503 (SlowDown: Reduce)"),
        (.badStatus(code: 400, s3Code: nil, message: "only a message"), "the S3 server answered 400 (only a message)"),
        (.unreachable(endpoint: "http://127.0.0.1:9", attempts: 1, underlying: "refused"),
         "cannot reach the S3 server at http://127.0.0.1:9 (1 attempt: refused); is it running, and is the endpoint right (endpoint=, S3_ENDPOINT, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else the region's AWS endpoint)?"),
        (.unreachable(endpoint: "http://127.0.0.1:9", attempts: 4, underlying: "refused"),
         "cannot reach the S3 server at http://127.0.0.1:9 (4 attempts: refused); is it running, and is the endpoint right (endpoint=, S3_ENDPOINT, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else the region's AWS endpoint)?"),
        (.invalidConfiguration("no bucket"), "invalid S3 configuration: no bucket"),
        (.credentialsUnavailable(source: "STS", reason: "refused"), "no S3 credentials from STS: refused"),
        (.invalidResponse("no ETag"), "unreadable answer from the S3 server: no ETag"),
        (.fileError(path: "/tmp/a", reason: "gone"), "/tmp/a: gone"),
        (.corruptTransfer(key: "k", reason: "short"), "the transfer of \"k\" was corrupted: short"),
    ])
    func descriptions(error: S3ClientError, expected: String) {
        #expect(error.description == expected)
        #expect(!error.description.contains("\n"))
    }

    @Test("access denied shows S3's code and message, or 403 when it sent neither, and points at the credentials")
    func accessDeniedDescription() {
        let bare = S3ClientError.accessDenied(s3Code: nil, message: nil).description
        #expect(bare.hasPrefix("the S3 server refused the request (403); check the credentials"))
        let detailed = S3ClientError.accessDenied(s3Code: "SignatureDoesNotMatch", message: "bad signature").description
        #expect(detailed.hasPrefix("the S3 server refused the request (SignatureDoesNotMatch: bad signature); "))
        #expect(detailed.contains("S3_ACCESS_KEY and S3_SECRET_KEY"))
        #expect(detailed.hasSuffix("and S3_REGION"))
    }

    // MARK: - Retry policy edges

    @Test("at least one attempt is always made, whatever maxAttempts says", arguments: [0, -1, Int.min])
    func attemptsClamped(requested: Int) {
        #expect(S3RetryPolicy(maxAttempts: requested).maxAttempts == 1)
    }

    @Test("the defaults are four attempts from 100 ms up to 5 s")
    func defaults() {
        let policy = S3RetryPolicy()
        #expect(policy == S3RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(5)))
        #expect(policy.backoffCap(beforeRetry: 7) == .seconds(5))
        #expect(policy.backoffCap(beforeRetry: 6) == .milliseconds(3200))
    }

    @Test("a retry number of zero or less backs off as the first retry")
    func nonPositiveRetry() {
        let policy = S3RetryPolicy(baseDelay: .milliseconds(40), maxDelay: .seconds(1))
        #expect(policy.backoffCap(beforeRetry: 0) == .milliseconds(40))
        #expect(policy.backoffCap(beforeRetry: -5) == .milliseconds(40))
    }

    @Test("far-out retries stay at the cap instead of overflowing", arguments: [31, 64, 1_000, Int.max])
    func farRetriesCapped(retry: Int) {
        let policy = S3RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(30))
        #expect(policy.backoffCap(beforeRetry: retry) == .seconds(30))
    }

    @Test("a cap below the base delay wins from the first retry")
    func capBelowBase() {
        let policy = S3RetryPolicy(baseDelay: .seconds(2), maxDelay: .milliseconds(500))
        #expect(policy.backoffCap(beforeRetry: 1) == .milliseconds(500))
    }

    @Test("jittered delays stay between zero and the cap; a zero base never waits")
    func jitterBounds() {
        let policy = S3RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(35))
        for retry in 1...6 {
            let cap = policy.backoffCap(beforeRetry: retry)
            for _ in 0..<50 {
                let delay = policy.delay(beforeRetry: retry)
                #expect(delay >= .zero && delay <= cap)
            }
        }
        let zero = S3RetryPolicy(baseDelay: .zero, maxDelay: .seconds(1))
        #expect(zero.delay(beforeRetry: 3) == .zero)
    }

    @Test("durations convert to whole nanoseconds, truncating and saturating", arguments: [
        (Duration.seconds(2), 2_000_000_000),
        (.milliseconds(1), 1_000_000),
        (.nanoseconds(7), 7),
        (.zero, 0),
        (.seconds(-1), -1_000_000_000),
        (Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999), 1),
        (.seconds(Int64.max), Int64.max),
    ] as [(Duration, Int64)])
    func nanoseconds(duration: Duration, expected: Int64) {
        #expect(duration.nanoseconds == expected)
    }

    @Test("gateway errors and every 5xx but 501 are retried; conflicts and successes are not", arguments: [
        (502, nil, true), (504, nil, true), (599, nil, true), (507, nil, true),
        (409, nil, false), (412, nil, false), (416, nil, false), (200, nil, false), (301, nil, false),
        (400, "SlowDown", true), (200, "SlowDown", true), (409, "OperationAborted", false),
    ] as [(Int, String?, Bool)])
    func retryable(status: Int, code: String?, expected: Bool) {
        #expect(S3RetryPolicy.isRetryable(status: status, s3Code: code) == expected)
    }

    @Test("ExpiredToken and TokenRefreshRequired are the codes that renew temporary credentials")
    func expiredCredentialCodes() {
        #expect(S3RetryPolicy.expiredCredentialCodes == ["ExpiredToken", "TokenRefreshRequired"])
    }

    // MARK: - Ranges

    @Test("byte ranges write the HTTP Range header", arguments: [
        (S3ByteRange.bounded(first: 0, last: 99), "bytes=0-99"),
        (.bounded(first: 5_242_830, last: 5_242_929), "bytes=5242830-5242929"),
        (.from(4096), "bytes=4096-"),
        (.from(0), "bytes=0-"),
        (.suffix(500), "bytes=-500"),
    ])
    func rangeHeaders(range: S3ByteRange, header: String) {
        #expect(range.headerValue == header)
    }
}
