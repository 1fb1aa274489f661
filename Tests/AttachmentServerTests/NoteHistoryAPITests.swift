@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /api/notes/{id}/versions` and `POST /api/notes/{id}/versions/{version}/restore`.
@Suite("Note history over the API", .timeLimit(.minutes(2)))
struct NoteHistoryAPITests {
    struct Versions: Decodable {
        struct Version: Decodable {
            var version: String
            var title: String
            var body: String
        }
        var versions: [Version]
    }

    @Test("the versions an edit replaced are listed newest first; restoring one answers the note; an unknown one is a 404")
    func versionsListedAndRestored() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote(title: "Plan", body: "first")
            let edit = try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers,
                                                body: JSON.body(["body": "second"]))
            #expect(edit.status == .ok)
            let listed = try JSON.decode(Versions.self, try await client.execute(uri: "/api/notes/\(note.id)/versions", method: .get))
            #expect(listed.versions.map(\.body) == ["first"])
            let version = try #require(listed.versions.first?.version)
            let restored = try await client.execute(uri: "/api/notes/\(note.id)/versions/\(version)/restore", method: .post)
            #expect(restored.status == .ok)
            #expect(try JSON.decode(NoteResource.self, restored).body == "first")
            let again = try JSON.decode(Versions.self, try await client.execute(uri: "/api/notes/\(note.id)/versions", method: .get))
            #expect(again.versions.map(\.body) == ["second", "first"])

            let unknown = try await client.execute(uri: "/api/notes/\(note.id)/versions/%3Cscript%3E/restore", method: .post)
            #expect(unknown.status == .notFound && JSON.errorCode(unknown) == "version_not_found")
            let missing = try await client.execute(uri: "/api/notes/\(NoteID.make().rawValue)/versions", method: .get)
            #expect(missing.status == .notFound)
        }
    }
}
