import Foundation
@testable import S3Client
import Synchronization
import Testing

/// A stand-in S3 server for answers scripted per test: a `FakeAWSEndpoint` that gives `answers`
/// in order (the last one repeats) and keeps every request, headers and body included.
struct ScriptedS3: Sendable {
    let endpoint: FakeAWSEndpoint

    static func start(_ answers: [FakeAWSEndpoint.Answer]) async throws -> ScriptedS3 {
        let served = Mutex(0)
        let endpoint = try await FakeAWSEndpoint.start { _ in
            served.withLock { count in
                count += 1
                return answers[min(count, answers.count) - 1]
            }
        }
        return ScriptedS3(endpoint: endpoint)
    }

    /// `METHOD URI` of each request, in order.
    var requests: [String] { endpoint.requests.map { "\($0.method) \($0.uri)" } }

    /// A client for the bucket named `bucket` on this server, in `region`, adjusted by `adjust`; failed requests are not retried.
    func client(region: String = "us-east-1", _ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Client {
        var configuration = try S3Configuration(endpoint: try #require(URL(string: endpoint.url)), bucket: "bucket",
                                                region: region, accessKey: "AKIASCRIPT", secretKey: "ScriptSecret")
        configuration.retry = S3RetryPolicy(maxAttempts: 1)
        adjust(&configuration)
        return S3Client(configuration: configuration)
    }

    func stop() async throws { try await endpoint.stop() }
}
