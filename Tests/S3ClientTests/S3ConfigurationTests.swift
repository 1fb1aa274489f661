import Foundation
@testable import S3Client
import Testing
import TestSupport

@Suite("S3 configuration")
struct S3ConfigurationTests {
    let environment = [
        "S3_ENDPOINT": "http://127.0.0.1:59000", "S3_ACCESS_KEY": "attach:attach",
        "S3_SECRET_KEY": "0123456789abcdef", "S3_BUCKET": "attach", "S3_REGION": "eu-west-1",
    ]

    @Test("the environment gives endpoint, bucket, region and credentials")
    func fromEnvironment() throws {
        let configuration = try S3Configuration.fromEnvironment(environment)
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:59000")
        #expect(configuration.bucket == "attach")
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.credentials == .fixed(S3Credentials(accessKeyID: "attach:attach", secretAccessKey: "0123456789abcdef")))
    }

    @Test("the region defaults to us-east-1 and the bucket to the caller's when S3_BUCKET is absent")
    func defaults() throws {
        var environment = environment
        environment["S3_REGION"] = nil
        environment["S3_BUCKET"] = nil
        let configuration = try S3Configuration.fromEnvironment(environment, bucket: "photos")
        #expect(configuration.region == "us-east-1")
        #expect(configuration.bucket == "photos")
    }

    @Test("a missing variable is named in the error")
    func missingVariable() {
        var environment = environment
        environment["S3_SECRET_KEY"] = nil
        #expect(throws: S3ClientError.invalidConfiguration("S3_SECRET_KEY (or S3_SECRET_KEY_FILE) is not set")) {
            try S3Configuration.fromEnvironment(environment)
        }
    }

    @Test("credentials may come from files named by S3_ACCESS_KEY_FILE and S3_SECRET_KEY_FILE, their newline dropped")
    func credentialsFromFiles() throws {
        let directory = try TemporaryDirectory("s3-secrets")
        let (access, secret) = (directory.appending("access"), directory.appending("secret"))
        try Data("from-file-access\n".utf8).write(to: access)
        try Data("from-file-secret\n".utf8).write(to: secret)
        var environment = environment
        environment["S3_ACCESS_KEY"] = nil
        environment["S3_SECRET_KEY"] = nil
        environment["S3_ACCESS_KEY_FILE"] = access.path(percentEncoded: false)
        environment["S3_SECRET_KEY_FILE"] = secret.path(percentEncoded: false)
        let configuration = try S3Configuration.fromEnvironment(environment)
        #expect(configuration.credentials == .fixed(S3Credentials(accessKeyID: "from-file-access", secretAccessKey: "from-file-secret")))
        environment["S3_SECRET_KEY_FILE"] = "/nonexistent/secret"
        #expect(throws: S3ClientError.invalidConfiguration("S3_SECRET_KEY_FILE names /nonexistent/secret, which cannot be read")) {
            try S3Configuration.fromEnvironment(environment)
        }
    }

    @Test("an s3:// URL gives bucket, endpoint and region, credentials from the environment")
    func fromURL() throws {
        let configuration = try S3Configuration(
            url: "s3://photos?endpoint=http://127.0.0.1:9000&region=us-east-2",
            environment: ["S3_ACCESS_KEY": "k", "S3_SECRET_KEY": "s", "S3_BUCKET": "ignored"])
        #expect(configuration.bucket == "photos")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(configuration.region == "us-east-2")
    }

    @Test("URLs that are not s3://BUCKET, or name unknown parameters, are refused", arguments: [
        "http://photos", "s3://", "s3://photos/sub", "s3://photos?endpoint=http://h&secret=x",
    ])
    func badURL(url: String) {
        #expect(throws: S3ClientError.self) {
            try S3Configuration(url: url, environment: environment)
        }
    }

    @Test("an endpoint that is not http(s) is refused")
    func badEndpoint() {
        var environment = environment
        environment["S3_ENDPOINT"] = "ftp://127.0.0.1"
        #expect(throws: S3ClientError.self) { try S3Configuration.fromEnvironment(environment) }
    }

    @Test("the description never shows the secret key")
    func descriptionHidesSecret() throws {
        let configuration = try S3Configuration.fromEnvironment(environment)
        #expect(!configuration.description.contains("0123456789abcdef"))
        #expect(configuration.description.contains("attach:attach"))
    }

    @Test("retry backoff doubles from the base delay up to the cap")
    func backoff() {
        let policy = S3RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(350))
        #expect(policy.backoffCap(beforeRetry: 1) == .milliseconds(100))
        #expect(policy.backoffCap(beforeRetry: 2) == .milliseconds(200))
        #expect(policy.backoffCap(beforeRetry: 3) == .milliseconds(350))
        #expect(policy.delay(beforeRetry: 3) <= .milliseconds(350))
    }

    @Test("5xx (but 501), 429, SlowDown and RequestTimeout are retryable; other 4xx are not")
    func retryableStatuses() {
        #expect(S3RetryPolicy.isRetryable(status: 503, s3Code: "SlowDown"))
        #expect(S3RetryPolicy.isRetryable(status: 500, s3Code: nil))
        #expect(S3RetryPolicy.isRetryable(status: 429, s3Code: nil))
        #expect(S3RetryPolicy.isRetryable(status: 400, s3Code: "RequestTimeout"))
        #expect(!S3RetryPolicy.isRetryable(status: 501, s3Code: "NotImplemented"))
        #expect(!S3RetryPolicy.isRetryable(status: 403, s3Code: "AccessDenied"))
        #expect(!S3RetryPolicy.isRetryable(status: 404, s3Code: "NoSuchKey"))
    }

    @Test("S3 error XML is read into a typed error")
    func errorBody() {
        let body = ByteBufferHelper.buffer("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>
            """)
        let details = S3ErrorDetails(status: 403, body: body)
        #expect(details.error(bucket: "b", key: "k")
            == .accessDenied(s3Code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match"))
        #expect(S3ErrorDetails(status: 404, body: nil).error(bucket: "b", key: "k") == .noSuchKey(bucket: "b", key: "k"))
    }
}
