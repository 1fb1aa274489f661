@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// `/login` against a guessing client on a live server: a few wrong tokens, then 429 with
/// `Retry-After` (the token unchecked) for that address only, and a bounded log.
@Suite("Login rate limit", .timeLimit(.minutes(2)))
struct LoginRateLimitTests {
    static let token = "login-rate-limit-token"

    static func login(_ token: String) -> Data {
        let body = "token=\(token)&next=%2F"
        return Data(("POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    @Test("a login flood from one address gets 429 with Retry-After after five wrong tokens; another address still logs in; the log stays short")
    func floodIsThrottled() async throws {
        let capture = LogCapture()
        var fixture = try ServerFixture(token: Self.token)
        fixture.configuration.logger = capture.logger(level: .notice)
        try await LiveServerTests.serve(fixture) { port, _ in
            let statuses = try await RawHTTPConnection.with(port: port, from: "127.0.0.1") { write, read in
                var statuses: [(status: Int, retryAfter: String?)] = []
                for _ in 0..<300 {
                    try await write(Self.login("guess"))
                    let response = try #require(try await read())
                    statuses.append((response.status, response.headers["retry-after"]))
                }
                // Even the right token is not checked while the address must wait.
                try await write(Self.login(Self.token))
                let right = try #require(try await read())
                statuses.append((right.status, right.headers["retry-after"]))
                return statuses
            }
            #expect(statuses.prefix(5).allSatisfy { $0.status == 401 }, "\(statuses.prefix(6))")
            #expect(statuses[5].status == 429)
            let throttled = statuses.filter { $0.status == 429 }
            #expect(throttled.count >= 280, "\(throttled.count) of 301 answered 429")
            #expect(throttled.allSatisfy { ($0.retryAfter.flatMap(Int.init) ?? 0) >= 1 }, "every 429 says how long to wait")
            #expect(statuses.last?.status == 429, "the right token during the wait is not checked")

            // Another address is not held back.
            let other = try await HostAllowListTests.send(
                port, from: "127.0.0.2", "POST /login HTTP/1.1",
                ["Host: 127.0.0.1", "Content-Type: application/x-www-form-urlencoded"], body: Data("token=\(Self.token)&next=%2F".utf8))
            #expect(other.status == 303)
            #expect(other.headers["set-cookie"]?.hasPrefix(LoginSessions.cookieName + "=") == true)

            let wrong = capture.records("login refused: wrong token")
            let tooSoon = capture.records("login refused: too many attempts")
            #expect((1...2).contains(wrong.count), "\(wrong.count) lines for wrong tokens")
            #expect((1...2).contains(tooSoon.count), "\(tooSoon.count) lines for tries too soon")
            #expect(wrong.first?.metadata["client.address"] == "127.0.0.1")
        }
    }

    @Test("wrong tokens double the wait after the free ones, up to the maximum; a right token clears it")
    func backOff() {
        let attempts = LoginAttempts(freeFailures: 3, maximumWait: .seconds(60))
        let start = ContinuousClock.now
        for _ in 0..<3 { attempts.failed("10.0.0.1", now: start) }
        #expect(attempts.wait(for: "10.0.0.1", now: start) == .seconds(1))
        #expect(attempts.wait(for: "10.0.0.1", now: start + .seconds(1)) == nil)
        attempts.failed("10.0.0.1", now: start + .seconds(1))
        #expect(attempts.wait(for: "10.0.0.1", now: start + .seconds(1)) == .seconds(2))
        #expect(attempts.wait(after: 3 + 5) == .seconds(32))
        #expect(attempts.wait(after: 3 + 6) == .seconds(60))
        #expect(attempts.wait(after: 3 + 200) == .seconds(60))
        #expect(attempts.wait(for: "10.0.0.2", now: start) == nil, "another address is not held back")
        attempts.succeeded("10.0.0.1")
        #expect(attempts.wait(for: "10.0.0.1", now: start + .seconds(1)) == nil)
    }

    @Test("the table of addresses stays within its capacity under wrong tokens from many addresses")
    func boundedMemory() {
        let attempts = LoginAttempts(capacity: 100)
        let start = ContinuousClock.now
        for index in 0..<5_000 { attempts.failed("10.0.\(index / 256).\(index % 256)", now: start + .milliseconds(index)) }
        #expect(attempts.count <= 100)
    }

    @Test("a flood of events writes one log line per interval, standing for all of them")
    func logThrottle() {
        let throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.record(now: start) == 1)
        for second in 0..<9 { #expect(throttle.record(now: start + .seconds(second)) == nil) }
        #expect(throttle.record(now: start + .seconds(10)) == 10)
        #expect(throttle.record(now: start + .seconds(11)) == nil)
    }
}
