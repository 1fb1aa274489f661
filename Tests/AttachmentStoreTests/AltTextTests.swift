import AttachmentStore
import Foundation
import Testing
import TestSupport

/// An attachment's alt text: kept in its metadata, checked like a title, and synced.
@Suite("Alt text of an attachment")
struct AltTextTests {
    @Test("alt text is kept in the metadata beside what was there, syncs to a peer, and an empty one removes it")
    func altTextIsKeptAndSyncs() async throws {
        let fixtures = try await [StoreFixture("a"), StoreFixture("b")]
        let (here, peer) = (fixtures[0].store, fixtures[1].store)
        let note = try await here.createNote(title: "trip")
        let photo = try await here.addAttachment(to: note.id, data: Data("photo".utf8), filename: "p.txt", metadata: ["source": "phone"])
        try await here.setAltText(photo.id, to: "  A red kite over the dunes  ")
        #expect(try await here.attachment(photo.id).metadata == ["source": "phone", "alt": "A red kite over the dunes"])

        try await AttachmentOrderConvergenceTests.settle([here, peer])
        #expect(try await peer.attachment(photo.id).metadata["alt"] == "A red kite over the dunes")

        try await peer.setAltText(photo.id, to: "")
        try await AttachmentOrderConvergenceTests.settle([here, peer])
        #expect(try await here.attachment(photo.id).metadata == ["source": "phone"])
    }

    @Test("alt text with a line break, a control or bidirectional character, or over 1,000 characters is refused and nothing changes")
    func badAltTextIsRefused() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "trip")
        let photo = try await fixture.store.addAttachment(to: note.id, data: Data("photo".utf8), filename: "p.txt")
        for bad in ["two\nlines", "bell\u{7}", "evil\u{202E}gpj.exe", String(repeating: "é", count: 1001)] {
            await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.setAltText(photo.id, to: bad) }
        }
        #expect(try await fixture.store.attachment(photo.id).metadata.isEmpty)
        await #expect(throws: AttachmentStore.Error.attachmentNotFound("nope")) { try await fixture.store.setAltText(AttachmentID(rawValue: "nope"), to: "x") }
    }
}
