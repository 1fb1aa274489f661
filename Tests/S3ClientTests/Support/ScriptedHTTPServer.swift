import Foundation
@testable import S3Client
import Synchronization
import Testing

/// A stand-in for an S3 server with answers scripted per test: a ``FakeAWSEndpoint`` giving
/// `answers` in order (the last one repeats), keeping every request, headers and body included.
struct ScriptedHTTPServer: Sendable {
    /// One scripted answer.
    typealias Answer = FakeAWSEndpoint.Answer

    /// The endpoint underneath, for the requests' headers and bodies.
    let endpoint: FakeAWSEndpoint

    /// The port the server listens on.
    var port: Int { endpoint.port }
    /// `METHOD URI` of each request received, in order.
    var requests: [String] { endpoint.requests.map { "\($0.method) \($0.uri)" } }

    /// Starts a server that gives `answers` in order.
    static func start(answers: [Answer]) async throws -> ScriptedHTTPServer {
        let served = Mutex(0)
        let endpoint = try await FakeAWSEndpoint.start { _ in
            served.withLock { count in
                count += 1
                return answers[min(count, answers.count) - 1]
            }
        }
        return ScriptedHTTPServer(endpoint: endpoint)
    }

    /// A client for the bucket named `bucket` on this server, in `region`, adjusted by `adjust`;
    /// failed requests are not retried.
    func client(region: String = "us-east-1", _ adjust: (inout S3Configuration) -> Void = { _ in }) throws -> S3Client {
        var configuration = try S3Configuration(endpoint: try #require(URL(string: endpoint.url)), bucket: "bucket",
                                                region: region, accessKey: "AKIASCRIPT", secretKey: "ScriptSecret")
        configuration.retry = S3RetryPolicy(maxAttempts: 1)
        adjust(&configuration)
        return S3Client(configuration: configuration)
    }

    /// Stops listening.
    func stop() async throws { try await endpoint.stop() }
}
