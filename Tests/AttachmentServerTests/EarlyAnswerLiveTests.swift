@testable import AttachmentServer
import AttachmentStore
import Foundation
import Glibc
import Testing
import TestSupport

/// Cached thumbnails answered on the event loop, before the router, against a running server
/// and a bare client: the same bytes as the router's answer, answers in request order, and
/// the router's refusals kept for every request that is not plainly allowed.
@Suite("Early answers on a live server", .timeLimit(.minutes(2)))
struct EarlyAnswerLiveTests {
    /// A store with one photo, and its hash-addressed thumbnail URL at `size`.
    static func photo(_ fixture: ServerFixture, size: Int = 200) async throws -> (note: String, url: String) {
        let store = try await fixture.store()
        let note = try await store.createNote(title: "early")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        return (note.id.rawValue, "/api/attachments/\(attachment.id)/thumbnail?v=\(attachment.blobHash.rawValue)&size=\(size)")
    }

    /// Runs `body` against a live server whose store holds one photo, with that photo's
    /// thumbnail at `url` already asked for once, so that it is cached.
    static func serveWithCachedThumbnail(
        _ body: @escaping @Sendable (_ port: Int, _ note: String, _ url: String) async throws -> Void
    ) async throws {
        let fixture = try ServerFixture()
        let (note, url) = try await photo(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            _ = try await get(url, port: port)
            try await body(port, note, url)
        }
    }

    static func get(_ target: String, port: Int, _ headers: [String] = []) async throws -> RawHTTPConnection.Response {
        try #require(try await RawHTTPConnection.with(port: port) { write, read in
            try await write(LiveServerTests.requestHead("GET", target, headers))
            return try await read()
        })
    }

    static func earlyAnswers(port: Int) async throws -> Int {
        let metrics = String(decoding: try await get("/metrics", port: port, ["Authorization: Bearer full-secret"]).body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("attach_thumbnail_early_answers_total ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    /// The headers of an answer that must not differ between the two paths (all but `Date`).
    static func comparable(_ response: RawHTTPConnection.Response) -> [String: String] {
        response.headers.filter { $0.key != "date" }
    }

    @Test("a cached thumbnail answered early carries the router's bytes and headers, for a 200 and a 304")
    func earlyAnswerIsTheRoutersAnswer() async throws {
        let fixture = try ServerFixture()
        let (_, url) = try await Self.photo(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let routed = try await Self.get(url, port: port)  // renders, then caches
            #expect(try await Self.earlyAnswers(port: port) == 0)
            let early = try await Self.get(url, port: port)
            #expect(try await Self.earlyAnswers(port: port) == 1)
            #expect(routed.status == 200 && early.status == 200)
            #expect(early.body == routed.body && !early.body.isEmpty)
            #expect(Self.comparable(early) == Self.comparable(routed))
            #expect(early.headers["date"] != nil)

            // A 304: the router answers one before anything is cached (size 400), early after.
            let url400 = url.replacingOccurrences(of: "size=200", with: "size=400")
            let tag = "If-None-Match: \"\(url.split(separator: "=")[1].split(separator: "&")[0])-400\""
            let routed304 = try await Self.get(url400, port: port, [tag])
            _ = try await Self.get(url400, port: port)  // caches size 400
            let before = try await Self.earlyAnswers(port: port)
            let early304 = try await Self.get(url400, port: port, [tag])
            #expect(try await Self.earlyAnswers(port: port) == before + 1)
            #expect(routed304.status == 304 && early304.status == 304)
            #expect(Self.comparable(early304) == Self.comparable(routed304))
        }
    }

    @Test("pipelined requests are answered in order when a cached thumbnail follows a routed request")
    func pipelinedAnswersKeepTheirOrder() async throws {
        try await Self.serveWithCachedThumbnail { port, note, url in
            let statuses = try await RawHTTPConnection.with(port: port) { write, read in
                // One write: the thumbnail's head arrives while the router still has the list.
                try await write(LiveServerTests.requestHead("GET", "/api/notes/\(note)/attachments", [])
                    + LiveServerTests.requestHead("GET", url, []) + LiveServerTests.requestHead("GET", "/health", [])
                    + LiveServerTests.requestHead("GET", url, []))
                var answers: [(Int, String)] = []
                for _ in 0..<4 {
                    let response = try #require(try await read())
                    answers.append((response.status, response.headers["content-type"] ?? ""))
                }
                // The connection still serves, early again once the router is done.
                try await write(LiveServerTests.requestHead("GET", url, []))
                let last = try #require(try await read())
                answers.append((last.status, last.headers["content-type"] ?? ""))
                return answers
            }
            #expect(statuses.map(\.0) == [200, 200, 200, 200, 200])
            #expect(statuses.map(\.1) == ["application/json; charset=utf-8", "image/jpeg", "application/json; charset=utf-8", "image/jpeg", "image/jpeg"],
                    "answers in request order")
        }
    }

    @Test("with a cached thumbnail, a foreign Host is still 421, no or a wrong token 401, a sync token 403; the full token is answered early")
    func refusalsStayTheRouters() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.token = "full-secret"
        fixture.configuration.syncToken = "sync-secret"
        let (_, url) = try await Self.photo(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let bearer = "Authorization: Bearer full-secret"
            #expect(try await Self.get(url, port: port, [bearer]).status == 200)  // cached from now on
            let before = try await Self.earlyAnswers(port: port)
            #expect(try await Self.get(url, port: port).status == 401)
            #expect(try await Self.get(url, port: port, ["Authorization: Bearer wrong"]).status == 401)
            #expect(try await Self.get(url, port: port, ["Authorization: Bearer sync-secret"]).status == 403)
            #expect(try await Self.get(url, port: port, ["Cookie: attach_session=forged"]).status == 401)
            let foreign = try #require(try await RawHTTPConnection.with(port: port) { write, read in
                try await write(Data("GET \(url) HTTP/1.1\r\nHost: evil.example\r\n\(bearer)\r\n\r\n".utf8))
                return try await read()
            })
            #expect(foreign.status == 421)
            #expect(try await Self.earlyAnswers(port: port) == before, "none of these was answered early")
            #expect(try await Self.get(url, port: port, [bearer]).status == 200)
            #expect(try await Self.earlyAnswers(port: port) == before + 1)
        }
    }

    @Test("a client pipelining cached requests without reading its answers does not pile them up in the server")
    func unreadAnswersDoNotPileUp() async throws {
        try await Self.serveWithCachedThumbnail { port, _, url in
            let request = LiveServerTests.requestHead("GET", url, [])
            let (socket, sent) = try Self.sendWithoutReading(request, times: 30_000, to: port, for: .seconds(3))
            defer { Glibc.close(socket) }
            let early = try await Self.earlyAnswers(port: port)
            try await Task.sleep(for: .seconds(1))
            let later = try await Self.earlyAnswers(port: port)
            // Once the connection stops taking writes, the rest go to the router, which reads no
            // further until each answer is written: the answers made here are about what the
            // client's socket buffers hold, not one per request sent, and they stop.
            #expect(sent > 8_000, "the attack sent \(sent) requests")
            #expect(early < sent / 2, "\(early) of \(sent) unread requests were answered early")
            #expect(later == early, "the server went on answering a client that reads nothing (\(early), then \(later))")
            #expect(try await Self.get("/health", port: port).status == 200, "other clients are still served")
        }
    }

    /// Sends `request` up to `times` times on a new connection to `127.0.0.1:port` without ever
    /// reading, for at most `duration`; returns the connection's socket, still open (the caller
    /// closes it), and how many requests were sent whole.
    static func sendWithoutReading(_ request: Data, times: Int, to port: Int, for duration: Duration) throws -> (socket: Int32, sent: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var all = Data(capacity: request.count * times)
        for _ in 0..<times { all.append(request) }
        let deadline = ContinuousClock.now + duration
        var offset = 0
        while offset < all.count && ContinuousClock.now < deadline {
            let written = all.withUnsafeBytes { bytes in Glibc.send(socket, bytes.baseAddress! + offset, all.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 { offset += written } else if errno == EAGAIN || errno == EWOULDBLOCK { usleep(10_000) } else { break }
        }
        return (socket, offset / request.count)
    }
}
