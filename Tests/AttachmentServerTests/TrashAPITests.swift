@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `DELETE` moves to the trash; `/api/trash` lists, restores, purges and empties it; `/trash`
/// is its page.
@Suite("Trash over the API", .timeLimit(.minutes(2)))
struct TrashAPITests {
    struct Items: Decodable {
        var items: [TrashRoutes.ItemResource]
    }

    @Test("DELETE moves a note and a photo to the trash, which lists them; restore brings them back; ?purge=true and the trash's own DELETE purge")
    func trashOverTheAPI() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote(title: "Receipts")
            let kept = try await client.upload("good/Garden.jpg", to: note.id)
            let photo = try await client.upload("good/Aqua.jpg", to: note.id)

            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)", method: .delete).status == .noContent)
            let listing = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get)
            #expect(String(buffer: listing.body).contains(kept.id) && !String(buffer: listing.body).contains(photo.id))
            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)/original", method: .get).status == .ok,
                    "a photo in the trash can still be looked at")
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .notFound)

            let trash = try JSON.decode(Items.self, try await client.execute(uri: "/api/trash", method: .get))
            #expect(Set(trash.items.map(\.id)) == [note.id, photo.id])
            let noteItem = try #require(trash.items.first { $0.id == note.id })
            #expect(noteItem.kind == "note" && noteItem.title == "Receipts" && noteItem.attachmentCount == 1)
            #expect(noteItem.restoreUrl == "/api/trash/\(note.id)/restore")
            let page = try await client.execute(uri: "/trash", method: .get)
            let html = String(buffer: page.body)
            #expect(page.status == .ok)
            #expect(html.contains(#"<li class="trash-item" data-id="\#(note.id)" data-kind="note"><span class="note-title">Receipts</span>"#), "\(html)")
            #expect(html.contains(#"<span class="note-title">Aqua.jpg</span>"#))

            let restored = try await client.execute(uri: "/api/trash/\(photo.id)/restore", method: .post)
            #expect(restored.status == .ok)
            #expect(try JSON.decode(TrashRoutes.ItemResource.self, restored).kind == "attachment")
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .ok, "its note came back with it")
            let back = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get)
            #expect(String(buffer: back.body).contains(kept.id) && String(buffer: back.body).contains(photo.id))

            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)?purge=true", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)", method: .get).status == .notFound)
            #expect(try JSON.decode(Items.self, try await client.execute(uri: "/api/trash", method: .get)).items.isEmpty, "purged, not trashed")

            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/trash/\(note.id)", method: .delete).status == .noContent)
            let again = try await client.execute(uri: "/api/trash/\(note.id)/restore", method: .post)
            #expect(again.status == .notFound && JSON.errorCode(again) == "not_in_trash")

            let other = try await client.createNote(title: "Other")
            _ = try await client.execute(uri: "/api/notes/\(other.id)", method: .delete)
            let emptied = try await client.execute(uri: "/api/trash", method: .delete)
            #expect(emptied.status == .ok && String(buffer: emptied.body).contains("\"notes\":1"))
        }
    }

    @Test("what is not a trash item or not a yes/no is refused: a malformed id is 404 not_in_trash, purge=maybe is 400, nothing changes")
    func hostileTrashRequests() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote(title: "Stays")
            let maybe = try await client.execute(uri: "/api/notes/\(note.id)?purge=maybe", method: .delete)
            #expect(maybe.status == .badRequest && JSON.errorCode(maybe) == "invalid_query")
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .ok)
            for path in ["../../etc/passwd", "%2E%2E%2Fcatalog.sqlite", "not-a-uuid", String(repeating: "a", count: 4000)] {
                let restore = try await client.execute(uri: "/api/trash/\(path)/restore", method: .post)
                #expect([.notFound].contains(restore.status), "\(path): \(restore.status)")
                let purge = try await client.execute(uri: "/api/trash/\(path)", method: .delete)
                #expect(purge.status == .notFound, "\(path): \(purge.status)")
            }
            let live = try await client.execute(uri: "/api/trash/\(note.id)", method: .delete)
            #expect(live.status == .notFound && JSON.errorCode(live) == "not_in_trash", "a live note is not purged through the trash")
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .ok)
        }
    }
}
