@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A note's gallery a page at a time: the note page holds the first 100 tiles and the next
/// page's address, each later page is an HTML fragment of the same tiles, and the pages together
/// are the note's attachments in order, each once.
@Suite("Gallery pages", .timeLimit(.minutes(2)))
struct GalleryPageTests {
    static func tileIDs(_ html: String) -> [String] {
        html.matches(of: /<li class="tile" data-id="([0-9a-f-]+)"/).map { String($0.output.1) }
    }

    static func seed(_ fixture: ServerFixture, files: Int) async throws -> (NoteID, [AttachmentID]) {
        let store = try await fixture.store()
        let note = try await store.createNote(title: "Many files")
        var ids: [AttachmentID] = []
        for index in 0..<files {
            ids.append(try await store.addAttachment(to: note.id, data: Data("file \(index)".utf8), filename: "file-\(index).txt").id)
        }
        return (note.id, ids)
    }

    @Test("a note of 230 files: the page holds 100 tiles, two fragments the other 130, in order, each once")
    func pagesCoverTheNote() async throws {
        let fixture = try ServerFixture()
        let (note, ids) = try await Self.seed(fixture, files: 230)
        try await fixture.test { client in
            let page = String(buffer: try await client.execute(uri: "/notes/\(note.rawValue)", method: .get).body)
            #expect(Self.tileIDs(page) == ids[..<100].map(\.rawValue))
            #expect(page.contains(#"data-next="/notes/\#(note.rawValue)/gallery?after=99""#))
            #expect(page.contains(#"data-unloaded="130""#))
            #expect(page.contains(#"id="gallery-more""#))

            let second = try await client.execute(uri: "/notes/\(note.rawValue)/gallery?after=99", method: .get)
            #expect(second.status == .ok && second.headers[.contentType] == "text/html; charset=utf-8")
            let secondHTML = String(buffer: second.body)
            #expect(Self.tileIDs(secondHTML) == ids[100..<200].map(\.rawValue))
            #expect(secondHTML.contains(#"data-next="/notes/\#(note.rawValue)/gallery?after=199""#))
            #expect(!secondHTML.contains("<html"), "a fragment, not a page")

            let last = String(buffer: try await client.execute(uri: "/notes/\(note.rawValue)/gallery?after=199", method: .get).body)
            #expect(Self.tileIDs(last) == ids[200...].map(\.rawValue))
            #expect(!last.contains("data-next"))
        }
    }

    @Test("a note that fits one page has no next address and no loading line")
    func smallNote() async throws {
        let fixture = try ServerFixture()
        let (note, ids) = try await Self.seed(fixture, files: 100)
        try await fixture.test { client in
            let page = String(buffer: try await client.execute(uri: "/notes/\(note.rawValue)", method: .get).body)
            #expect(Self.tileIDs(page) == ids.map(\.rawValue))
            #expect(!page.contains("data-next") && !page.contains("gallery-more") && !page.contains("data-unloaded"))
        }
    }

    @Test("without after the fragment is the first page; a malformed after is a 400, an unknown note a 404")
    func fragmentArguments() async throws {
        let fixture = try ServerFixture()
        let (note, ids) = try await Self.seed(fixture, files: 3)
        try await fixture.test { client in
            let first = String(buffer: try await client.execute(uri: "/notes/\(note.rawValue)/gallery", method: .get).body)
            #expect(Self.tileIDs(first) == ids.map(\.rawValue))
            for after in ["-1", "x", "99999999999"] {
                let response = try await client.execute(uri: "/notes/\(note.rawValue)/gallery?after=\(after)", method: .get)
                #expect(response.status == .badRequest, "after=\(after)")
            }
            let unknown = try await client.execute(uri: "/notes/00000000-0000-4000-8000-000000000000/gallery", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    @Test("with a token, a browser without a session is sent to the login page, not given tiles")
    func pagesNeedTheSession() async throws {
        let fixture = try ServerFixture(token: "gallery-token-0123456789")
        let (note, _) = try await Self.seed(fixture, files: 1)
        try await fixture.test { client in
            let response = try await client.execute(uri: "/notes/\(note.rawValue)/gallery", method: .get)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location]?.hasPrefix("/login") == true)
            #expect(!String(buffer: response.body).contains("class=\"tile\""))
        }
    }

    @Test("one attachment's tile by id, also after one before it went to the trash; none for another note's or a trashed one")
    func oneTileByID() async throws {
        let fixture = try ServerFixture()
        let (note, ids) = try await Self.seed(fixture, files: 3)
        let store = try await fixture.store()
        try await store.moveAttachmentToTrash(ids[1])
        // Added after the trashed one: its stored position is 3, its place in the gallery 2.
        let added = try await store.addAttachment(to: note, data: Data("late".utf8), filename: "late.txt")
        let other = try await store.createNote(title: "Other")
        let stranger = try await store.addAttachment(to: other.id, data: Data("elsewhere".utf8), filename: "x.txt")
        try await fixture.test { client in
            let tile = { (id: AttachmentID) in
                Self.tileIDs(String(buffer: try await client.execute(uri: "/notes/\(note.rawValue)/gallery?attachment=\(id.rawValue)", method: .get).body))
            }
            #expect(try await tile(added.id) == [added.id.rawValue])
            #expect(try await tile(ids[0]) == [ids[0].rawValue])
            #expect(try await tile(ids[1]).isEmpty)
            #expect(try await tile(stranger.id).isEmpty)
            let malformed = try await client.execute(uri: "/notes/\(note.rawValue)/gallery?attachment=..%2F", method: .get)
            #expect(malformed.status == .notFound)
        }
    }
}
