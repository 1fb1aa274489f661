@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Web UI pages", .timeLimit(.minutes(2)))
struct WebUITests {
    @Test("the home page lists notes and searches them")
    func homeListsAndSearches() async throws {
        try await ServerFixture().test { client in
            _ = try await client.createNote(title: "Beach", body: "sand")
            _ = try await client.createNote(title: "Snow", body: "cold")
            let all = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(all.contains("Beach") && all.contains("Snow"))
            let searched = try await client.execute(uri: "/?q=sand", method: .get)
            #expect(searched.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: searched.body)
            #expect(html.contains("Beach") && !html.contains(">Snow<"))
        }
    }

    @Test("a note page shows a lazy gallery with 1x and 2x thumbnails")
    func notePageHasGallery() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote(title: "Trip")
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let html = String(buffer: try await client.execute(uri: "/notes/\(note.id)", method: .get).body)
            #expect(html.contains(#"data-id="\#(photo.id)""#))
            #expect(html.contains(#"loading="lazy""#))
            #expect(html.contains("size=200 1x"))
            #expect(html.contains("size=400 2x"))
            #expect(html.contains(#"id="import""#) && html.contains("multiple"))
            #expect(html.contains(#"id="viewer-done""#))
        }
    }

    @Test("the notes and note pages carry the change feed's position they were rendered at, which the page follows live")
    func pagesCarryTheirFeedPosition() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote(title: "Live")
            let position = try await fixture.store().changeFeedPosition()
            #expect(position > 0)
            for page in ["/", "/notes/\(note.id)"] {
                let html = String(buffer: try await client.execute(uri: page, method: .get).body)
                #expect(html.contains(#"data-feed="\#(position)""#), "\(page)")
            }
            _ = try await client.createNote(title: "Later")
            let later = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(later.contains(#"data-feed="\#(position + 1)""#))
        }
    }

    @Test("pages hold no inline script or event handler attributes")
    func pagesHaveNoInlineScript() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            _ = try await client.upload("special/baseline.jpg", to: note.id)
            for path in ["/", "/notes/\(note.id)"] {
                let html = String(buffer: try await client.execute(uri: path, method: .get).body)
                #expect(html.firstMatch(of: /<script(?![^>]*\ssrc=)[^>]*>/) == nil, "\(path)")
                #expect(html.firstMatch(of: /\son[a-z]+=/) == nil, "\(path)")
                #expect(!html.contains("http://") && !html.contains("https://"), "\(path) loads nothing from another host")
            }
        }
    }

    @Test("the page of an unknown note is an HTML 404 with a way back")
    func unknownNotePage() async throws {
        try await ServerFixture().test { client in
            for path in ["/notes/00000000-0000-0000-0000-000000000000", "/notes/garbage"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(String(buffer: response.body).contains("No such note"))
            }
        }
    }
}
