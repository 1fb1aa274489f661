import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Moving an attachment to another note: it goes last there, its old note closes up, and the
/// move is an edit that every peer sees.
@Suite("Moving an attachment to another note")
struct AttachmentMoveToNoteTests {
    @Test("a moved attachment goes last in its new note with its bytes, and the old note closes up")
    func movedAttachmentGoesLastAndOldNoteClosesUp() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let trip = try await store.createNote(title: "trip")
        let album = try await store.createNote(title: "album")
        let photos = try await Array(0..<3).asyncMap { try await store.addAttachment(to: trip.id, data: Data("photo \($0)".utf8), filename: "p\($0).txt") }
        let kept = try await store.addAttachment(to: album.id, data: Data("kept".utf8), filename: "kept.txt")

        try await store.moveAttachment(photos[0].id, toNote: album.id)
        try await store.moveAttachment(photos[2].id, toNote: album.id)

        #expect(try await store.attachments(of: trip.id).map(\.id) == [photos[1].id])
        #expect(try await store.attachments(of: trip.id).map(\.position) == [0])
        let moved = try await store.attachments(of: album.id)
        #expect(moved.map(\.id) == [kept.id, photos[0].id, photos[2].id])
        #expect(moved.map(\.position) == [0, 1, 2])
        #expect(moved.map(\.noteID) == [album.id, album.id, album.id])
        #expect(try await store.original(of: photos[2].id).data() == Data("photo 2".utf8))
    }

    @Test("moving to a note in the trash or one that does not exist is refused and changes nothing")
    func moveToMissingNoteIsRefused() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let trip = try await store.createNote(title: "trip")
        let gone = try await store.createNote(title: "gone")
        let photo = try await store.addAttachment(to: trip.id, data: Data("photo".utf8), filename: "p.txt")
        try await store.moveNoteToTrash(gone.id)

        await #expect(throws: AttachmentStore.Error.noteNotFound(gone.id.rawValue)) { try await store.moveAttachment(photo.id, toNote: gone.id) }
        let nowhere = NoteID.make()
        await #expect(throws: AttachmentStore.Error.noteNotFound(nowhere.rawValue)) { try await store.moveAttachment(photo.id, toNote: nowhere) }
        #expect(try await store.attachments(of: trip.id).map(\.id) == [photo.id])
    }

    @Test("the move syncs: a peer lists the attachment in its new note and no longer in the old one")
    func moveSyncsToPeers() async throws {
        let fixtures = try await [StoreFixture("a"), StoreFixture("b")]
        let (here, peer) = (fixtures[0].store, fixtures[1].store)
        let trip = try await here.createNote(title: "trip")
        let album = try await here.createNote(title: "album")
        let photo = try await here.addAttachment(to: trip.id, data: Data("photo".utf8), filename: "p.txt")
        try await AttachmentOrderConvergenceTests.settle([here, peer])
        #expect(try await peer.attachments(of: trip.id).map(\.id) == [photo.id])

        try await here.moveAttachment(photo.id, toNote: album.id)
        try await AttachmentOrderConvergenceTests.settle([here, peer])

        #expect(try await peer.attachments(of: trip.id).isEmpty)
        #expect(try await peer.attachments(of: album.id).map(\.id) == [photo.id])
    }
}
