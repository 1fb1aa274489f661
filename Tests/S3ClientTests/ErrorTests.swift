import Foundation
import NIOCore
import NIOPosix
@testable import S3Client
import Testing

@Suite("S3 errors", .timeLimit(.minutes(2)))
struct ErrorTests {
    @Test("a wrong secret key is a typed access-denied error, and nothing is written", .needsS3)
    func wrongSecret() async throws {
        let key = S3TestEnvironment.uniquePrefix("denied") + "never"
        let wrong = try S3TestEnvironment.client {
            guard case .fixed(var credentials) = $0.credentials else { return }
            credentials.secretAccessKey = String(credentials.secretAccessKey.reversed()) + "x"
            $0.credentials = .fixed(credentials)
        }
        await #expect {
            try await wrong.putObject(key: key, data: [1, 2, 3])
        } throws: { error in
            guard case S3ClientError.accessDenied(let code, _) = error else { return false }
            return code == "SignatureDoesNotMatch" || code == "AccessDenied"
        }
        #expect(try await S3TestEnvironment.client().headObject(key: key) == nil)
    }

    @Test("a bucket that does not exist is a typed noSuchBucket error", .needsS3)
    func missingBucket() async throws {
        let s3 = try S3TestEnvironment.client { $0.bucket = "no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())" }
        await #expect(throws: S3ClientError.noSuchBucket(s3.configuration.bucket)) {
            _ = try await s3.getObject(key: "anything")
        }
    }

    @Test("an endpoint where nothing listens is a typed unreachable error after every attempt")
    func unreachableEndpoint() async throws {
        let port = try await FreePort.pick()
        let configuration = try S3Configuration(endpoint: URL(string: "http://127.0.0.1:\(port)")!, bucket: "b",
                                                accessKey: "k", secretKey: "s")
        var tuned = configuration
        tuned.retry = S3RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        let s3 = S3Client(configuration: tuned)
        await #expect {
            _ = try await s3.headObject(key: "k")
        } throws: { error in
            guard case S3ClientError.unreachable(let endpoint, let attempts, _) = error else { return false }
            return endpoint == "http://127.0.0.1:\(port)" && attempts == 3
        }
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
enum FreePort {
    static func pick() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
