@testable import AttachmentClient
@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// The client sample of docs/api.md, compiled and run as written against a real server (`make
/// docs-test` checks that it appears verbatim here). The sample names the server at
/// `127.0.0.1:8080` and its files relative to where it runs; local `URL(string:)` and
/// `URL(filePath:)` functions point those at the test's server and folder, so the sample's text
/// stays what a reader types.
@Suite("The client sample of the API guide", .timeLimit(.minutes(2)))
struct DocsClientSampleTests {
    /// A progress bar's and a spinner's stand-ins.
    final class ProgressView {
        var progress = 0.0
        var label = ""
    }

    @Test("docs/api.md, AttachmentClient: create, upload with progress, a cancelled thumbnail, a cancelled download, delete and restore")
    func clientSample() async throws {
        let fixture = try ServerFixture(token: AttachmentClientTests.token)
        let folder = try TemporaryDirectory("docs-client")
        try FileManager.default.copyItem(at: try Corpus.file("good/Dune.jpg"), to: folder.appending("IMG_0042.jpg"))
        try await LiveServerTests.serve(fixture) { port, _ in
            let token = AttachmentClientTests.token
            let (bar, spinner) = (ProgressView(), ProgressView())
            func URL(string: String) -> Foundation.URL? {
                Foundation.URL(string: string.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)"))
            }
            func URL(filePath path: String) -> Foundation.URL { folder.appending(path) }

            let client = AttachmentClient(server: URL(string: "http://127.0.0.1:8080")!, token: token)
            let note = try await client.createNote(title: "Trip")

            let upload = client.upload(fileAt: URL(filePath: "IMG_0042.jpg"), to: note.id)
            for await step in upload.progress { bar.progress = Double(step.sent) / Double(step.total) }
            let photo = try await upload.value          // a cut connection is resumed from the server's offset

            let cell = Task { try await client.thumbnail(of: photo.id, size: 400, priority: .visible) }
            cell.cancel()                               // scrolled away: never asked for, or cut if in flight

            let sheet = client.download(photo.id, to: URL(filePath: "IMG_0042-full.jpg"))
            for await step in sheet.progress { spinner.label = "\(step.received * 100 / step.total)%" }
            sheet.cancel()                              // Done before it loaded: the transfer stops, no file is left

            try await client.deleteNote(note.id)        // to the trash; client.trash() lists it
            try await client.restoreFromTrash(note.id)  // back, on every peer (purge: true deletes for good)

            #expect(bar.progress == 1)
            #expect(photo.filename == "IMG_0042.jpg")
            // Restoring a note that was not in the trash would have been a 404: it went there, and is back.
            #expect(try await client.note(note.id).title == "Trip")
        }
    }
}
