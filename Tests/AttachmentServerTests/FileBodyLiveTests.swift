@testable import AttachmentServer
import AttachmentStore
import Foundation
import Glibc
import Testing
import TestSupport

/// Originals and blobs sent with `sendfile` by the connection's `FileBodyHandler`, against a
/// running server and a bare client: the bytes of the file, whole or a range, answers in
/// request order behind them, the internal field never on the wire, and a file cut short on
/// disk never passed off as a whole answer.
@Suite("File bodies on a live server", .timeLimit(.minutes(2)))
struct FileBodyLiveTests {
    /// A store holding `file` of the corpus as an attachment; its id, hash and bytes.
    static func stored(_ fixture: ServerFixture, _ file: String = "special/large-16mb.jpg", filename: String? = nil)
        async throws -> (id: String, hash: String, bytes: Data)
    {
        let store = try await fixture.store()
        let note = try await store.createNote(title: "sendfile")
        let source = try Corpus.file(file)
        let attachment = try await store.addAttachment(to: note.id, fromFile: source, filename: filename)
        return (attachment.id.rawValue, attachment.blobHash.rawValue, try Data(contentsOf: source))
    }

    static func get(_ target: String, port: Int, _ headers: [String] = []) async throws -> RawHTTPConnection.Response? {
        try await RawHTTPConnection.with(port: port) { write, read in
            try await write(LiveServerTests.requestHead("GET", target, headers))
            return try await read()
        }
    }

    /// `attach_file_body_bytes_total` as `/metrics` shows it.
    static func fileBodyBytes(port: Int) async throws -> Int {
        let metrics = String(decoding: try #require(try await get("/metrics", port: port)).body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("attach_file_body_bytes_total ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    @Test("an original goes out by sendfile byte for byte, and the field that names its file never reaches the client")
    func originalIsSentFromTheFile() async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let response = try #require(try await Self.get("/api/attachments/\(photo.id)/original", port: port))
            #expect(response.status == 200)
            #expect(response.body == photo.bytes)
            #expect(response.headers["content-length"] == String(photo.bytes.count))
            #expect(response.headers[FileBody.field.rawName] == nil)
            #expect(!response.headers.keys.contains { $0.hasPrefix("x-attach") })
            #expect(try await Self.fileBodyBytes(port: port) == photo.bytes.count)
        }
    }

    @Test("a range of an original, or of a blob for a peer, is sent from its offset", arguments: [
        "bytes=0-0", "bytes=100-199", "bytes=16000000-", "bytes=-10", "bytes=4096-8191",
    ])
    func rangeIsSentFromItsOffset(range: String) async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        let size = photo.bytes.count
        let (first, last): (Int, Int) = {
            let spec = range.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            if spec[0].isEmpty { return (size - Int(spec[1])!, size - 1) }
            return (Int(spec[0])!, spec[1].isEmpty ? size - 1 : Int(spec[1])!)
        }()
        try await LiveServerTests.serve(fixture) { port, _ in
            for target in ["/api/attachments/\(photo.id)/original", "/blobs/sha256/\(photo.hash)"] {
                let response = try #require(try await Self.get(target, port: port, ["Range: \(range)"]))
                #expect(response.status == 206)
                #expect(response.headers["content-range"] == "bytes \(first)-\(last)/\(size)")
                #expect(response.body == photo.bytes[first...last])
            }
            #expect(try await Self.fileBodyBytes(port: port) == 2 * (last - first + 1))
        }
    }

    @Test("answers pipelined behind file bodies leave in request order, each whole")
    func pipelinedAnswersKeepTheirOrder() async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        let original = "/api/attachments/\(photo.id)/original"
        try await LiveServerTests.serve(fixture) { port, _ in
            let answers = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("GET", original, ["Range: bytes=0-9"])
                    + LiveServerTests.requestHead("GET", "/health", [])
                    + LiveServerTests.requestHead("GET", original, [])
                    + LiveServerTests.requestHead("GET", "/blobs/sha256/\(photo.hash)", ["Range: bytes=10-19"])
                    + LiveServerTests.requestHead("GET", "/health", []))
                var answers: [RawHTTPConnection.Response] = []
                for _ in 0..<5 { answers.append(try #require(try await read())) }
                return answers
            }
            #expect(answers.map(\.status) == [206, 200, 200, 206, 200])
            #expect(answers[0].body == photo.bytes[0...9])
            #expect(answers[2].body == photo.bytes)
            #expect(answers[3].body == photo.bytes[10...19])
            #expect(answers[1].body == answers[4].body)
        }
    }

    @Test("a HEAD, whole or by range, answers the GET's headers with no body", arguments: ["", "Range: bytes=0-9\r\n"])
    func headSendsNoFileBody(range: String) async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let socket = try BareSocket(port: port)
            socket.send("HEAD /api/attachments/\(photo.id)/original HTTP/1.1\r\nHost: 127.0.0.1\r\n\(range)\r\n"
                + "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let text = String(decoding: await socket.received(), as: UTF8.self)
            let answers = text.components(separatedBy: "HTTP/1.1 ")
            // The HEAD's head, then straight away the next answer: no byte of the file between.
            #expect(answers.count == 3)
            #expect(answers.dropFirst().first?.hasSuffix("\r\n\r\n") == true)
            #expect(answers.dropFirst().first?.lowercased().contains("content-length: \(range.isEmpty ? photo.bytes.count : 10)\r\n") == true)
            #expect(answers.last?.hasPrefix("200 OK") == true)
            let sent = try await Self.fileBodyBytes(port: port)
            #expect(sent == 0)
        }
    }

    @Test("a download slower than the idle timeout and the request-head deadline is not cut: the answer ends when its last byte leaves")
    func slowDownloadOutlastsTheTimeouts() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.idleTimeout = .seconds(1)
        fixture.configuration.requestHeadTimeout = .seconds(1)
        let photo = try await Self.stored(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            let socket = try BareSocket(port: port)
            socket.send("GET /api/attachments/\(photo.id)/original HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // About 3 s for 16 MB: 256 KiB at most every 50 ms.
            let (fd, size) = (socket.fd, photo.bytes.count)
            let received = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var total = 0
                    var buffer = [UInt8](repeating: 0, count: 256 << 10)
                    while total <= size {
                        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { break }
                        total += count
                        usleep(50_000)
                    }
                    continuation.resume(returning: total)
                }
            }
            withExtendedLifetime(socket) {}
            #expect(received > photo.bytes.count, "\(received) bytes arrived of a \(photo.bytes.count)-byte body and its head")
        }
    }

    @Test("a Connection: close answer sends its whole file before the connection closes")
    func closingAnswerSendsTheWholeFile() async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        try await LiveServerTests.serve(fixture) { port, _ in
            for _ in 0..<5 {
                let response = try await Self.get("/api/attachments/\(photo.id)/original", port: port, ["Connection: close"])
                #expect(response?.body == photo.bytes)
            }
        }
    }

    @Test("a blob file cut short on disk ends the connection instead of passing a short body off as the whole")
    func shortFileClosesTheConnection() async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture)
        let store = try await fixture.store()
        let path = try await store.blobFile(try #require(BlobHash(rawValue: photo.hash))).url.path(percentEncoded: false)
        #expect(chmod(path, 0o644) == 0)
        #expect(truncate(path, off_t(photo.bytes.count / 2)) == 0)
        try await LiveServerTests.serve(fixture) { port, _ in
            // The head promises every byte; the client must see the answer end unfinished.
            let cut = try await Self.get("/api/attachments/\(photo.id)/original", port: port)
            #expect(cut == nil)
            let sent = try await Self.fileBodyBytes(port: port)
            #expect(sent == 0)
            // The server goes on answering.
            let health = try await Self.get("/health", port: port)
            #expect(health?.status == 200)
        }
    }

    @Test("a filename or request field spelling the internal field sends no other file", arguments: [
        "x.jpg\r\nx-attach-file-body: 0 9 /etc/hostname", "x-attach-file-body: 0 9 /etc/hostname",
    ])
    func spelledFieldSendsNoOtherFile(filename: String) async throws {
        let fixture = try ServerFixture()
        let photo = try await Self.stored(fixture, "special/baseline.jpg", filename: filename)
        try await LiveServerTests.serve(fixture) { port, _ in
            let response = try #require(try await Self.get(
                "/api/attachments/\(photo.id)/original", port: port, ["X-Attach-File-Body: 0 9 /etc/hostname"]))
            #expect(response.status == 200)
            #expect(response.body == photo.bytes)
            #expect(try await Self.fileBodyBytes(port: port) == photo.bytes.count)
        }
    }
}
