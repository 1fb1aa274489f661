import Foundation
import Testing
import TestSupport

/// A client that stops reading an answer, against a real `attach serve` process (its own thread
/// pool, so the other suites of the test runner cannot slow its file reads).
@Suite("Slow readers", .timeLimit(.minutes(3)))
struct SlowReaderTests {
    @Test("a client that reads nothing of a 16 MB original is cut off after --response-write-timeout")
    func slowReaderIsCutOff() async throws {
        let directory = try TemporaryDirectory("slow-reader")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("big", store: store)
        let photo = try Corpus.file("special/large-16mb.jpg")
        let imported = try await Attach.run(["import", "--json", "--note", note, photo.path(percentEncoded: false)], store: store)
        let id = try #require(Attach.importedLines(imported.stdout).first?.attachment["id"] as? String)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: photo.path(percentEncoded: false))[.size] as? Int)
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--response-write-timeout", "1"])
        defer { server.process.kill(SIGKILL) }

        let reader = try BareSocket(port: server.port)
        reader.send("GET /api/attachments/\(id)/original HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // Read nothing once the answer has started: the window fills, the server's writes stall.
        let deadline = ContinuousClock.now + .seconds(60)
        while reader.unread < 128 << 10, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(6))
        let (bytes, closed) = await reader.drained()
        print("slow reader: \(bytes) of \(size) bytes arrived before the cut")
        #expect(closed, "the server closed the connection")
        #expect(bytes < size, "only \(bytes) of \(size) bytes were sent before the cut")
    }
}
