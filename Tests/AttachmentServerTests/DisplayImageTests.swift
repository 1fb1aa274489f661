@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("The viewer's display image: the original when browsers draw it, else a rendition", .timeLimit(.minutes(2)))
struct DisplayImageTests {
    @Test("a small JPEG is shown as itself; HEIC, AVIF, TIFF and a 16 MB JPEG through their 2048 px rendition, which decodes")
    func displayURLs() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let small = try await client.upload("special/baseline.jpg", to: note.id)
            #expect(small.displayUrl == small.originalUrl)
            for path in ["special/photo.heic", "special/photo.avif", "special/photo.tiff", "special/large-16mb.jpg"] {
                let resource = try await client.upload(path, to: note.id, contentType: "application/octet-stream")
                let display = try #require(resource.displayUrl)
                #expect(display == (resource.thumbnailUrl ?? "") + "&size=2048", "\(path)")
                let response = try await client.execute(uri: display, method: .get)
                #expect(response.status == .ok, "\(path)")
                #expect(["image/jpeg", "image/webp", "image/png"].contains(response.headers[.contentType] ?? ""), "\(path)")
                #expect(response.body.readableBytes > 10_000, "\(path): a real picture")
            }
            let html = String(buffer: try await client.execute(uri: "/notes/\(note.id)", method: .get).body)
            #expect(html.contains(#"data-display="/api/attachments/"#) && html.contains(#"id="viewer-download""#))
        }
    }
}
