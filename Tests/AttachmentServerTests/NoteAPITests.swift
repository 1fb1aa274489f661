@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Notes API", .timeLimit(.minutes(2)))
struct NoteAPITests {
    @Test("a created note can be read, changed and deleted")
    func noteLifecycle() async throws {
        try await ServerFixture().test { client in
            let created = try await client.createNote(title: "Garden", body: "Spring")
            #expect(created.title == "Garden")
            let fetched = try await client.execute(uri: "/api/notes/\(created.id)", method: .get)
            #expect(fetched.status == .ok)
            #expect(try JSON.decode(NoteResource.self, fetched) == created)

            let patched = try await client.execute(
                uri: "/api/notes/\(created.id)", method: .patch, headers: JSON.headers, body: JSON.body(["body": "Summer"]))
            #expect(patched.status == .ok)
            let changed = try JSON.decode(NoteResource.self, patched)
            #expect(changed.title == "Garden")
            #expect(changed.body == "Summer")

            #expect(try await client.execute(uri: "/api/notes/\(created.id)", method: .delete).status == .noContent)
            let gone = try await client.execute(uri: "/api/notes/\(created.id)", method: .get)
            #expect(gone.status == .notFound)
            #expect(JSON.errorCode(gone) == "note_not_found")
        }
    }

    @Test("creating a note answers 201 with its address")
    func createAnswersLocation() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers, body: JSON.body(["title": "A"]))
            #expect(response.status == .created)
            let note = try JSON.decode(NoteResource.self, response)
            #expect(response.headers[.location] == "/api/notes/\(note.id)")
            #expect(note.body == "")
        }
    }

    @Test("a note can be created with no body at all")
    func createWithoutBody() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/notes", method: .post)
            #expect(response.status == .created)
            #expect(try JSON.decode(NoteResource.self, response).title == "")
        }
    }

    @Test("the list searches title and body and pages")
    func listSearchesAndPages() async throws {
        try await ServerFixture().test { client in
            _ = try await client.createNote(title: "Beach day", body: "sand")
            _ = try await client.createNote(title: "Groceries", body: "apples, sand paper")
            _ = try await client.createNote(title: "Mountains", body: "snow")

            let all = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes", method: .get))
            #expect(all.notes.map(\.title) == ["Mountains", "Groceries", "Beach day"])
            #expect(all.next == nil)

            let sand = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?q=sand", method: .get))
            #expect(Set(sand.notes.map(\.title)) == ["Beach day", "Groceries"])
            let title = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?q=mountain", method: .get))
            #expect(title.notes.map(\.title) == ["Mountains"])

            let first = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?limit=2", method: .get))
            #expect(first.notes.count == 2)
            let next = try #require(first.next)
            let second = try JSON.decode(NotePage.self, try await client.execute(uri: next, method: .get))
            #expect(second.notes.map(\.title) == ["Beach day"])
            #expect(next.contains("after=") && !next.contains("offset="), "the next link pages by cursor: \(next)")
            let byOffset = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?limit=2&offset=2", method: .get))
            #expect(byOffset.notes.map(\.title) == ["Beach day"] && byOffset.offset == 2, "offset keeps working")
        }
    }

    @Test("following next links by cursor lists every note once, in order, while notes are added and edited meanwhile")
    func cursorPagesSeeEveryNoteOnce() async throws {
        try await ServerFixture().test { client in
            var created: [String] = []
            for index in 0..<23 { created.append(try await client.createNote(title: "note \(index)").id) }
            var seen: [String] = []
            var uri: String? = "/api/notes?limit=5&q=note"
            while let page = uri {
                let body = try JSON.decode(NotePage.self, try await client.execute(uri: page, method: .get))
                seen += body.notes.map(\.id)
                uri = body.next
                if seen.count == 10 {
                    // New notes and an edited one go to the front: the pages still ahead neither repeat nor skip.
                    _ = try await client.createNote(title: "note added meanwhile")
                    _ = try await client.execute(uri: "/api/notes/\(created[20])", method: .patch, headers: JSON.headers,
                                                 body: JSON.body(["title": "note edited meanwhile"]))
                }
            }
            #expect(Set(seen).count == seen.count, "no note twice")
            #expect(Set(created).subtracting([created[20]]).isSubset(of: Set(seen)), "every note not moved to the front is listed")
        }
    }

    @Test("a malformed after cursor is a 400 bad_cursor", arguments: [
        "x", "123", "123_", "_3f2a0000-0000-0000-0000-000000000000", "1234567890123456_3f2a0000-0000-0000-0000-000000000000",
        "-5_3f2a0000-0000-0000-0000-000000000000", "5_3F2A0000-0000-0000-0000-000000000000", "5_3f2a0000000000000000000000000000000000",
        "c_3f2a0000-0000-0000-0000-000000000000", "t_3f2a0000-0000-0000-0000-000000000000", "tMG%2BE_3f2a0000-0000-0000-0000-000000000000",
        "t" + String(repeating: "A", count: 801) + "_3f2a0000-0000-0000-0000-000000000000",
    ])
    func badCursorIsRejected(cursor: String) async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/notes?after=\(cursor)", method: .get)
            #expect(response.status == .badRequest, "\(cursor)")
            #expect(JSON.errorCode(response) == "bad_cursor")
        }
    }

    @Test("sort=title and sort=created order the list, and their next links keep the order to the last page")
    func listSortsAndPagesInOrder() async throws {
        try await ServerFixture().test { client in
            for title in ["Trip 10", "banana", "", "Éclair", "Trip 9", "apple"] {
                _ = try await client.createNote(title: title)
                try await Task.sleep(for: .milliseconds(3))  // distinct creation times
            }
            for (sort, expected) in [("title", ["apple", "banana", "Éclair", "Trip 9", "Trip 10", ""]),
                                     ("created", ["apple", "Trip 9", "Éclair", "", "banana", "Trip 10"])] {
                var titles: [String] = []
                var uri: String? = "/api/notes?limit=4&sort=\(sort)"
                while let page = uri {
                    let body = try JSON.decode(NotePage.self, try await client.execute(uri: page, method: .get))
                    titles += body.notes.map(\.title)
                    uri = body.next
                    if let next = body.next { #expect(next.contains("sort=\(sort)") && next.contains("after="), "\(next)") }
                }
                #expect(titles == expected, "sort=\(sort)")
            }
        }
    }

    @Test("a sort that is no order is a 400 bad_sort, and a cursor asked for with another order than its own is a 400 bad_cursor")
    func badSortIsRejected() async throws {
        try await ServerFixture().test { client in
            for sort in ["name", "TITLE", "", "updated,title", "title%00"] {
                let response = try await client.execute(uri: "/api/notes?sort=\(sort)", method: .get)
                #expect(response.status == .badRequest, "\(sort)")
                #expect(JSON.errorCode(response) == "bad_sort", "\(sort)")
            }
            _ = try await client.createNote(title: "a")
            _ = try await client.createNote(title: "b")
            let first = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?limit=1&sort=title", method: .get))
            let next = try #require(first.next)
            let cursor = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "after" }?.value)
            #expect(cursor.hasPrefix("t"))
            for other in ["updated", "created"] {
                let mixed = try await client.execute(uri: "/api/notes?limit=1&sort=\(other)&after=\(cursor)", method: .get)
                #expect(mixed.status == .badRequest)
                #expect(JSON.errorCode(mixed) == "bad_cursor")
            }
            // Left out, sort follows the cursor.
            let second = try JSON.decode(NotePage.self, try await client.execute(uri: "/api/notes?limit=1&after=\(cursor)", method: .get))
            #expect(second.notes.map(\.title) == ["b"])
        }
    }

    @Test("a bad limit or offset is a 400", arguments: ["limit=0", "limit=201", "limit=ten", "offset=-1"])
    func badPagingIsRejected(query: String) async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/notes?\(query)", method: .get)
            #expect(response.status == .badRequest)
            #expect(JSON.errorCode(response) == "invalid_query")
        }
    }

    @Test("a body that is not JSON is a 400")
    func malformedJSONIsRejected() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers, body: ByteBuffer(string: "{title"))
            #expect(response.status == .badRequest)
            #expect(JSON.errorCode(response) == "invalid_json")
            let empty = try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers)
            #expect(empty.status == .badRequest)
        }
    }

    @Test("a body that is not application/json is a 415")
    func wrongContentTypeIsRejected() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(
                uri: "/api/notes", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "{}"))
            #expect(response.status == .unsupportedMediaType)
            #expect(JSON.errorCode(response) == "unsupported_media_type")
        }
    }

    @Test("a JSON body over 1 MiB is a 413")
    func oversizedJSONIsRejected() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let huge = JSON.body(["body": String(repeating: "a", count: 2 << 20)])
            let response = try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers, body: huge)
            #expect(response.status == .contentTooLarge)
        }
    }

    @Test("unknown and malformed note ids are 404s for every method",
          arguments: ["00000000-0000-0000-0000-000000000000", "not-a-uuid", "..%2F..%2Fetc"])
    func unknownNotesAre404(id: String) async throws {
        try await ServerFixture().test { client in
            for method in [HTTPRequest.Method.get, .delete] {
                let response = try await client.execute(uri: "/api/notes/\(id)", method: method)
                #expect(response.status == .notFound)
                #expect(JSON.errorCode(response) == "note_not_found")
            }
            let patch = try await client.execute(uri: "/api/notes/\(id)", method: .patch, headers: JSON.headers, body: JSON.body(["title": "x"]))
            #expect(patch.status == .notFound)
        }
    }

    @Test("an unknown route is a JSON 404")
    func unknownRouteIs404() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/nothing", method: .get)
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "not_found")
        }
    }
}
