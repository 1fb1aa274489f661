import AsyncCoordination
import Foundation
import NIOHTTP1
@testable import S3Client
import Testing
import TestSupport

/// Retries against a scripted server that fails on purpose (no S3 server needed).
@Suite("S3 retries", .timeLimit(.minutes(3)))
struct RetryTests {
    static let slowDown = ScriptedHTTPServer.Answer(
        status: .serviceUnavailable,
        body: "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
    static let ok = ScriptedHTTPServer.Answer(status: .ok, body: "photo bytes", headers: [("ETag", "\"abc\"")])

    func client(port: Int, attempts: Int = 4, retry: S3RetryPolicy? = nil, clock: LoopClock = .continuous) throws -> S3Client {
        var configuration = try S3Configuration(endpoint: URL(string: "http://127.0.0.1:\(port)")!, bucket: "bucket",
                                                accessKey: "k", secretKey: "s")
        configuration.retry = retry ?? S3RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(1), maxDelay: .milliseconds(10))
        return S3Client(configuration: configuration, clock: clock)
    }

    @Test("each retry waits on the client's clock for at most its backoff cap: 1 s, 2 s, then 4 s, capped")
    func backoffWaitsOnTheInjectedClock() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.slowDown, Self.slowDown, Self.slowDown, Self.ok])
        let clock = ManualClock()
        let policy = S3RetryPolicy(maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(4))
        let s3 = try client(port: server.port, retry: policy, clock: LoopClock(clock))
        let download = Task {
            var bytes: [UInt8] = []
            for try await chunk in try await s3.getObject(key: "k").body { bytes += chunk.readableBytesView }
            return bytes
        }
        for retry in 1...3 {
            // The request is waiting on the clock (not on the wall clock) before retry `retry`.
            let waits = try #require(await clock.sleepers(atLeast: 1).first)
            #expect(waits <= policy.backoffCap(beforeRetry: retry), "retry \(retry) waits \(waits)")
            #expect(server.requests.count == retry)
            clock.advance(by: waits)
        }
        #expect(try await download.value == Array("photo bytes".utf8))
        #expect(server.requests.count == 4)
        #expect(policy.backoffCap(beforeRetry: 3) == .seconds(4))
        try await server.stop()
    }

    @Test("a request cancelled while it waits to retry ends at once, without another attempt")
    func cancelledDuringBackoff() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.slowDown, Self.ok])
        let clock = ManualClock()
        let s3 = try client(port: server.port, retry: S3RetryPolicy(maxAttempts: 4, baseDelay: .seconds(60), maxDelay: .seconds(60)),
                            clock: LoopClock(clock))
        let deletion = Task { try await s3.deleteObject(key: "k") }
        _ = await clock.sleepers(atLeast: 1)
        deletion.cancel()
        await #expect(throws: CancellationError.self) { try await deletion.value }
        #expect(server.requests == ["DELETE /bucket/k"])
        try await server.stop()
    }

    @Test("503 SlowDown twice, then 200: the GET succeeds on the third attempt")
    func retriesSlowDown() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.slowDown, Self.slowDown, Self.ok])
        let s3 = try client(port: server.port)
        var bytes: [UInt8] = []
        for try await chunk in try await s3.getObject(key: "a b.jpg").body { bytes += chunk.readableBytesView }
        #expect(bytes == Array("photo bytes".utf8))
        #expect(server.requests == Array(repeating: "GET /bucket/a%20b.jpg", count: 3))
        try await server.stop()
    }

    @Test("a 500 on every attempt gives up after maxAttempts with the last status")
    func givesUp() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .internalServerError)])
        let s3 = try client(port: server.port, attempts: 3)
        await #expect(throws: S3ClientError.badStatus(code: 500, s3Code: nil, message: nil)) {
            try await s3.deleteObject(key: "k")
        }
        #expect(server.requests.count == 3)
        try await server.stop()
    }

    @Test("a 4xx is not retried")
    func noRetryOn4xx() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(
            status: .badRequest, body: "<Error><Code>InvalidArgument</Code><Message>bad</Message></Error>")])
        let s3 = try client(port: server.port)
        await #expect(throws: S3ClientError.badStatus(code: 400, s3Code: "InvalidArgument", message: "bad")) {
            try await s3.putObject(key: "k", data: [1])
        }
        #expect(server.requests.count == 1)
        try await server.stop()
    }

    @Test("a POST (creating a multipart upload) is not retried, even on 503")
    func noRetryOfPost() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.slowDown, Self.ok])
        let s3 = try client(port: server.port)
        await #expect(throws: S3ClientError.badStatus(code: 503, s3Code: "SlowDown", message: "Please reduce your request rate.")) {
            _ = try await s3.send(S3Request(.POST, key: "k", query: [("uploads", "")]))
        }
        #expect(server.requests == ["POST /bucket/k?uploads="])
        try await server.stop()
    }

    @Test("a multipart upload whose part is refused is aborted with its upload id")
    func multipartAbortedOnFailure() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            .init(status: .ok, body: "<InitiateMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key>"
                + "<UploadId>upload-1</UploadId></InitiateMultipartUploadResult>"),
            .init(status: .badRequest, body: "<Error><Code>EntityTooSmall</Code><Message>too small</Message></Error>"),
            .init(status: .noContent),
        ])
        var configuration = try client(port: server.port).configuration
        configuration.multipartThreshold = 1
        configuration.partSize = S3Client.minimumPartSize
        let s3 = S3Client(configuration: configuration)
        let directory = try TemporaryDirectory("s3-abort")
        let file = directory.appending("big.bin")
        try Data(repeating: 7, count: 1000).write(to: file)

        await #expect(throws: S3ClientError.badStatus(code: 400, s3Code: "EntityTooSmall", message: "too small")) {
            _ = try await s3.putObject(key: "big", fileAt: file.path(percentEncoded: false))
        }
        #expect(server.requests == ["POST /bucket/big?uploads=", "PUT /bucket/big?partNumber=1&uploadId=upload-1",
                                    "DELETE /bucket/big?uploadId=upload-1"])
        try await server.stop()
    }
}
