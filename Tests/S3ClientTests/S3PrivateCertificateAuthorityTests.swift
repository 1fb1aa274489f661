import Foundation
import NIOSSL
@testable import S3Client
import Testing
import TestSupport

/// An S3 endpoint behind a private certificate authority, trusted through `AWS_CA_BUNDLE` and
/// only through it: a real TLS server the test runs, with a certificate no system trusts.
@Suite("S3 over a private certificate authority (AWS_CA_BUNDLE)", .timeLimit(.minutes(2)))
struct S3PrivateCertificateAuthorityTests {
    static let secret = "PrivateSecret123"
    static let keys = ["S3_ACCESS_KEY": "AKIAPRIVATE", "S3_SECRET_KEY": secret, "S3_BUCKET": "photos"]

    /// A bucket that accepts every PUT and names its ETag.
    static func acceptingBucket(tls: NIOSSLContext? = nil) async throws -> FakeAWSEndpoint {
        try await FakeAWSEndpoint.start(tls: tls) { _ in FakeAWSEndpoint.Answer(headers: [("ETag", "\"0123abcd\"")]) }
    }

    /// Why a configuration from `environment` is refused, nil when it is not.
    static func refusal(_ environment: [String: String]) -> String? {
        do {
            _ = try S3Configuration.fromEnvironment(environment)
            return nil
        } catch {
            if case .invalidConfiguration(let reason) = error { return reason }
            return "\(error)"
        }
    }

    static func serverTLS(_ certificate: TestCertificate) throws -> NIOSSLContext {
        try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificate.key, format: .pem))))
    }

    /// One PUT with `variables` on top of the keys, a single attempt.
    static func put(_ variables: [String: String]) async throws {
        var configuration = try S3Configuration.fromEnvironment(keys.merging(variables) { $1 })
        configuration.retry = S3RetryPolicy(maxAttempts: 1)
        try await S3Client(configuration: configuration).putObject(key: "trusted.txt", data: Array("bytes".utf8))
    }

    @Test("AWS_CA_BUNDLE naming the private CA lets requests through; without it, or with another CA, nothing is sent")
    func privateCertificateAuthority() async throws {
        let directory = try TemporaryDirectory("s3-private-ca")
        let serverCertificate = try await TestCertificate(in: directory)
        let otherCertificate = try await TestCertificate(in: directory, name: "other")
        let bucket = try await Self.acceptingBucket(tls: try Self.serverTLS(serverCertificate))
        let endpoint = "https://127.0.0.1:\(bucket.port)"

        try await Self.put(["S3_ENDPOINT": endpoint, "AWS_CA_BUNDLE": serverCertificate.certificate])
        #expect(bucket.requests.count == 1)
        let check = try #require(bucket.requests.first.flatMap { SignatureCheck.verify($0, secret: Self.secret) })
        #expect(check.valid)

        for variables in [["S3_ENDPOINT": endpoint], ["S3_ENDPOINT": endpoint, "AWS_CA_BUNDLE": otherCertificate.certificate]] {
            await #expect(throws: S3ClientError.self) { try await Self.put(variables) }
        }
        #expect(bucket.requests.count == 1, "a server whose certificate is not trusted received no request")
        try await bucket.stop()
    }

    @Test("a CA bundle that cannot be read or holds no certificate is refused when the configuration is made")
    func unusableBundle() throws {
        let directory = try TemporaryDirectory("s3-bad-ca")
        let notPEM = directory.appending("bundle.pem")
        try Data("not a certificate\n".utf8).write(to: notPEM)
        for path in [notPEM.path(percentEncoded: false), directory.appending("missing.pem").path(percentEncoded: false)] {
            let reason = Self.refusal(Self.keys.merging(["S3_ENDPOINT": "https://s3.example.com", "AWS_CA_BUNDLE": path]) { $1 })
            #expect(reason?.hasPrefix("the CA bundle \(path) ") == true, "\(reason ?? "accepted")")
        }
        #expect(throws: S3ClientError.self, "a URL's ca_bundle= naming no certificate") {
            try S3Configuration(url: "s3://photos?endpoint=https://s3.example.com&ca_bundle=\(notPEM.path(percentEncoded: false))",
                                environment: Self.keys)
        }
    }
}
