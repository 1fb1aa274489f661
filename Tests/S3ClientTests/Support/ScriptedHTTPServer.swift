import Synchronization

/// A stand-in for an S3 server that fails on purpose: a ``FakeAWSEndpoint`` answering with
/// scripted statuses, in order (the last one repeats), and listing what it received as
/// `METHOD URI`.
struct ScriptedHTTPServer: Sendable {
    /// One scripted answer.
    typealias Answer = FakeAWSEndpoint.Answer

    private let endpoint: FakeAWSEndpoint

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

    /// Stops listening.
    func stop() async throws { try await endpoint.stop() }
}
