@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// tus uploads whose client's link dies without closing: the server's request keeps waiting for
/// bytes, and the client, back on a new connection, must not be told 423 until that request
/// times out.
@Suite("Resumable uploads over HTTP: a silent connection hands its upload over", .timeLimit(.minutes(2)))
struct UploadHandoverAPITests {
    static let tus = "Tus-Resumable: 1.0.0"

    @Test("after a PATCH goes silent (no close), HEAD answers at once with every byte it delivered, and the rest finishes the upload")
    func silentPatchHandsOver() async throws {
        var fixture = try ServerFixture()
        // Without the handover the silent request would hold the upload this long.
        fixture.configuration.idleTimeout = .seconds(60)
        fixture.configuration.minimumUploadRate = nil
        let note = try await fixture.store().createNote(title: "from the train")
        let photo = try Data(contentsOf: try Corpus.file("special/large-16mb.jpg"))
        let metadata = "noteId \(Data(note.id.rawValue.utf8).base64EncodedString()),filename \(Data("big.jpg".utf8).base64EncodedString())"
        try await LiveServerTests.serve(fixture) { port, _ in
            let created = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("POST", "/api/uploads", [
                    Self.tus, "Upload-Length: \(photo.count)", "Upload-Metadata: \(metadata)", "Content-Length: 0",
                ]))
                return try await read()
            }
            let path = try #require(created?.headers["location"])

            // Five megabytes of the sixteen, then nothing: the socket stays open, silent.
            let sent = 5 << 20
            let silent = try BareSocket(port: port)
            let head = LiveServerTests.requestHead("PATCH", path, [
                Self.tus, "Content-Type: application/offset+octet-stream", "Upload-Offset: 0", "Content-Length: \(photo.count)",
            ])
            #expect(await silent.send(head + photo.prefix(sent)))

            // Back on a new connection, as a client whose link came back: HEAD stops the silent
            // request and answers with every byte it delivered — long before the 60 s timeout.
            let status = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("HEAD", path, [Self.tus]))
                return try await read()
            }
            #expect(status?.status == 200)
            #expect(status?.headers["upload-offset"] == String(sent))
            // The silent request's connection was closed by the handover.
            #expect(await silent.drained().closed)

            let rest = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("PATCH", path, [
                    Self.tus, "Content-Type: application/offset+octet-stream", "Upload-Offset: \(sent)",
                    "Content-Length: \(photo.count - sent)",
                ]) + photo.suffix(from: sent))
                return try await read()
            }
            #expect(rest?.status == 204)
            let attachment = try #require(rest?.headers["attachment-id"])
            let original = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("GET", "/api/attachments/\(attachment)/original", []))
                return try await read()
            }
            #expect(original?.body == photo)
        }
        #expect(try await fixture.store().verify().isClean)
    }
}
