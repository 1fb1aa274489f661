import Crypto
import Foundation
import NIOCore
import S3Client
import Testing

/// The S3 server the live tests talk to: the one `make test` starts (`S3_ENDPOINT` and friends,
/// printed by `scripts/services/s3.sh`).
enum S3TestEnvironment {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Whether the S3 variables are set (S3_ENDPOINT among them: without it a configuration
    /// would point at AWS).
    static var isAvailable: Bool {
        environment["S3_ENDPOINT"].map { !$0.isEmpty } == true && (try? S3Configuration.fromEnvironment(environment)) != nil
    }

    /// Whether `make test` asked for every service-backed test to run (`ATTACH_REQUIRE_SERVICES=1`).
    static var servicesRequired: Bool { environment["ATTACH_REQUIRE_SERVICES"] == "1" }

    /// The configuration from the environment, tuned by `adjust`.
    static func configuration(_ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Configuration {
        var configuration = try S3Configuration.fromEnvironment(environment)
        configuration.retry = S3RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        adjust(&configuration)
        return configuration
    }

    /// A client for the environment's bucket, tuned by `adjust`.
    static func client(_ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Client {
        S3Client(configuration: try configuration(adjust))
    }

    /// A key prefix no other test run uses.
    static func uniquePrefix(_ label: String) -> String {
        "s3client-tests/\(label)-\(UUID().uuidString.prefix(8))/"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when an S3 server is configured; `make test` starts one.
    static var needsS3: Self {
        .enabled(if: S3TestEnvironment.isAvailable, "needs S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET (make test starts a local S3 server)")
    }
}

extension S3Client {
    /// Every byte of the object under `key`.
    func bytes(of key: String, range: S3ByteRange? = nil) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in try await getObject(key: key, range: range).body {
            bytes += chunk.readableBytesView
        }
        return bytes
    }

    /// Deletes every object under `prefix` (test clean-up).
    func deleteAll(under prefix: String) async throws {
        for try await object in listObjects(prefix: prefix) { try await deleteObject(key: object.key) }
    }
}

/// The hex SHA-256 of the file at `url`.
func sha256Hex(of url: URL) throws -> String {
    SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
}
