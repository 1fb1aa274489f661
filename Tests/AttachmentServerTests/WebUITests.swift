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

    @Test("the home page and its fragment list notes in the order ?sort= names, the choice shown selected, and More notes keeps it")
    func homeSortsNotes() async throws {
        try await ServerFixture().test { client in
            for index in 0..<52 { _ = try await client.createNote(title: "Trip \(51 - index)") }
            let page = String(buffer: try await client.execute(uri: "/?sort=title", method: .get).body)
            #expect(page.contains(#"<option value="title" selected>Title</option>"#))
            #expect(!page.contains(#"<option value="updated" selected>"#))
            let titles = page.matches(of: /<span class="note-title">([^<]*)<\/span>/).map { String($0.output.1) }
            #expect(titles == (0..<50).map { "Trip \($0)" }, "numbers by value")
            #expect(page.contains("?sort=title&amp;after=t"), "More notes keeps the order")
            let more = try #require(page.firstMatch(of: /data-next="([^"]+)"/)).output.1
            let fragment = String(buffer: try await client.execute(uri: "/notes-page?sort=title&after=\(more)", method: .get).body)
            #expect(fragment.matches(of: /<span class="note-title">([^<]*)<\/span>/).map { String($0.output.1) } == ["Trip 50", "Trip 51"])
            let created = String(buffer: try await client.execute(uri: "/notes-page?sort=created", method: .get).body)
            #expect(created.contains(#"<span class="note-date-kind">Created </span><time"#), "a list by creation shows when each note was made")
            let unsorted = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(unsorted.contains(#"<option value="updated" selected>Last changed</option>"#))
            for bad in ["/?sort=size", "/notes-page?sort=title&after=\(more.replacingOccurrences(of: "t", with: "c", options: .anchored))"] {
                #expect(try await client.execute(uri: bad, method: .get).status == .badRequest, "\(bad)")
            }
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
