@testable import AttachmentServer
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Clients that keep sending, but too slowly to be worth a connection: the idle timeout never
/// fires for them, so the request-head deadline and the minimum upload rate must.
@Suite("Slow clients are cut off", .timeLimit(.minutes(2)))
struct SlowClientTests {
    @Test("a client trickling its request head a byte a second is disconnected at the head deadline")
    func tricklingHeadIsDisconnected() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.requestHeadTimeout = .seconds(2)
        let head = LiveServerTests.requestHead("GET", "/health", ["X-Slow: " + String(repeating: "s", count: 20)])
        try await LiveServerTests.serve(fixture) { port, _ in
            let (response, sent) = try await Self.trickle(head, to: port)
            #expect(response == nil, "the server answered a head that never finished: \(response?.status ?? 0)")
            #expect(sent < head.count, "the connection was closed before the head was complete (\(sent) of \(head.count) bytes)")
            let health = try await Self.get("/health", port: port)
            #expect(health?.status == 200, "other clients are still served")
        }
    }

    @Test("an upload arriving at a byte a second is answered 408 upload_too_slow, disconnected, and leaves nothing")
    func tricklingUploadIsCutOff() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.minimumUploadRate = 1024
        fixture.configuration.uploadRateWindow = .seconds(2)
        let note = try await fixture.store().createNote(title: "slow")
        let photo = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        try await LiveServerTests.serve(fixture) { port, _ in
            let head = LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=slow.jpg",
                                                   ["Content-Type: image/jpeg", "Content-Length: \(photo.count)"])
            let (response, sent) = try await Self.trickle(photo.prefix(200), to: port, after: head)
            #expect(response?.status == 408)
            let error = response.flatMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "upload_too_slow", "\(String(decoding: response?.body ?? Data(), as: UTF8.self))")
            #expect(response?.headers["connection"] == "close")
            #expect(sent < 200, "the connection was closed while the client was still sending (\(sent) bytes sent)")

            // A client at full speed is served meanwhile, under the same rule.
            let upload = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=fast.jpg",
                                                            ["Content-Type: image/jpeg", "Content-Length: \(photo.count)"]))
                try await write(photo)
                return try await read()
            }
            #expect(upload?.status == 201)
        }
        let store = try await fixture.store()
        let attachments = try await store.attachments(of: note.id)
        #expect(attachments.map(\.filename) == ["fast.jpg"], "the slow upload stored nothing")
        #expect(Files.tree(fixture.configuration.storeDirectory.appending(path: "tmp")).isEmpty, "no temporary file is left")
        #expect(try await store.verify().isClean)
    }

    @Test("the rate rule cuts a byte a second after one window and never a slow but real link")
    func rateRuleJudgesOnlyWholeWindows() {
        var trickle = UploadRate(minimumBytesPerSecond: 4096, window: .seconds(30))
        let verdicts = (0..<30).map { _ in trickle.record(1, after: .seconds(1)) }
        #expect(verdicts.dropLast().allSatisfy { $0 }, "no verdict before a whole window of waiting")
        #expect(verdicts.last == false, "30 bytes in 30 s is too slow")

        // 10 KiB/s with a 15 s pause every 30 s: a 20 MB photo over a poor link is never cut.
        var slowLink = UploadRate(minimumBytesPerSecond: 4096, window: .seconds(30))
        var linkVerdicts: [Bool] = []
        var sent = 0
        while sent < 20_000_000 {
            for _ in 0..<30 { linkVerdicts.append(slowLink.record(10 * 1024, after: .seconds(1))) }
            linkVerdicts.append(slowLink.record(0, after: .seconds(15)))
            sent += 30 * 10 * 1024
        }
        #expect(!linkVerdicts.contains(false))

        // Time the server spends not reading (the store busy) is not waiting on the client.
        var busyServer = UploadRate(minimumBytesPerSecond: 4096, window: .seconds(30))
        let busyVerdicts = (0..<1_000).map { _ in busyServer.record(64 * 1024, after: .milliseconds(1)) }
        #expect(!busyVerdicts.contains(false))
    }

    /// Writes `head` at once (when given), then `data` one byte a second until a write fails
    /// because the server closed the connection, or all is sent; returns the answer the server
    /// sent before closing (nil for none) and how many bytes of `data` were written.
    static func trickle(_ data: Data, to port: Int, after head: Data? = nil) async throws -> (RawHTTPConnection.Response?, Int) {
        try await RawHTTPConnection.with(port: port) { write, read in
            if let head { try await write(head) }
            var sent = 0
            for byte in data {
                do { try await write(Data([byte])) } catch { break }
                sent += 1
                try await Task.sleep(for: .seconds(1))
            }
            return (try? await read(), sent)
        }
    }

    /// GET `path` on a fresh connection.
    static func get(_ path: String, port: Int) async throws -> RawHTTPConnection.Response? {
        try await RawHTTPConnection.with(port: port) { write, read in
            try await write(LiveServerTests.requestHead("GET", path, []))
            return try await read()
        }
    }
}
