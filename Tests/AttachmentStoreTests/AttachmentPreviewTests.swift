import AttachmentStore
import Foundation
import Testing
import TestSupport

/// What the notes list shows of each note's attachments: the count and the first few, in order.
@Suite("Attachment previews of a list of notes")
struct AttachmentPreviewTests {
    @Test("each note's count leaves out the trash and its first attachments come in the note's order")
    func countsAndFirstAttachmentsInOrder() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let trip = try await store.createNote(title: "trip")
        let list = try await store.createNote(title: "shopping")
        let pair = try await store.createNote(title: "pair")
        let photos = try await Array(0..<6).asyncMap { try await store.addAttachment(to: trip.id, data: Data("photo \($0)".utf8), filename: "p\($0).txt") }
        let two = try await Array(0..<2).asyncMap { try await store.addAttachment(to: pair.id, data: Data("pair \($0)".utf8), filename: "q\($0).txt") }
        try await store.moveAttachment(photos[5].id, to: 0)
        try await store.moveAttachmentToTrash(photos[1].id)

        let previews = try await store.attachmentPreviews(of: [trip.id, list.id, pair.id, NoteID.make()], first: 3)
        #expect(previews[trip.id]?.count == 5)
        #expect(previews[trip.id]?.first.map(\.id) == [photos[5].id, photos[0].id, photos[2].id])
        #expect(previews[trip.id]?.first.map(\.position) == [0, 1, 2])
        #expect(previews[list.id] == AttachmentPreview(count: 0, first: []))
        #expect(previews[pair.id]?.first.map(\.id) == two.map(\.id))
        #expect(previews.count == 4, "an unknown note has an empty preview")
        #expect(try await store.attachmentPreviews(of: []).isEmpty)
        // More notes than one read takes: read in parts, the same answer.
        let many = [trip.id] + (0..<1200).map { _ in NoteID.make() }
        let parts = try await store.attachmentPreviews(of: many, first: 3)
        #expect(parts.count == 1201 && parts[trip.id] == previews[trip.id])
    }
}
