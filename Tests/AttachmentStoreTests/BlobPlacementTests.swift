@testable import AttachmentStore
import Foundation
import CatalogSQL
import Testing
import TestSupport

@Suite("Both local blob placements keep the store's promises", .timeLimit(.minutes(2)),
       .disabled(if: StoreFixture.usesObjectStore, "compares the two local placements; the object-store run has its own suite"))
struct BlobPlacementTests {
    /// The location of a local placement.
    static func originals(_ placement: BlobPlacement) -> OriginalsLocation {
        placement == .catalog ? .catalog : .files
    }

    static func fixture(_ placement: BlobPlacement) async throws -> StoreFixture {
        var configuration = AttachmentStore.Configuration()
        configuration.originals = originals(placement)
        return try await StoreFixture(configuration: configuration)
    }

    @Test("round trip, deduplication, thumbnails, gc and verify", arguments: [BlobPlacement.files, .catalog])
    func storePromises(placement: BlobPlacement) async throws {
        let fixture = try await Self.fixture(placement)
        let store = fixture.store
        #expect(store.blobPlacement == placement)
        let source = try Corpus.file("special/seed-3.7mb.jpg")
        let keep = try await store.createNote(title: "keep")
        let drop = try await store.createNote(title: "drop")
        let photo = try await store.addAttachment(to: keep.id, fromFile: source)
        _ = try await store.addAttachment(to: drop.id, fromFile: source)
        let other = try await store.addAttachment(to: drop.id, fromFile: Corpus.file("good/Dune.jpg"))

        let exported = fixture.directory.appending("export.jpg")
        try await store.original(of: photo.id).write(to: exported)
        #expect(try Files.identical(source, exported))
        #expect(try await store.statistics().blobs == 2)
        #expect(try await store.thumbnail(for: photo.id).width == 200)

        try await store.deleteNote(drop.id)
        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.blobs == 1)
        #expect(try await store.verify().isClean)
        await #expect(throws: AttachmentStore.Error.attachmentNotFound(other.id.rawValue)) { try await store.original(of: other.id) }

        let reopened = try await fixture.reopen { $0.originals = placement == .files ? .catalog : .files }
        #expect(reopened.blobPlacement == placement, "an existing store keeps the placement it was created with")
        let blobFiles = Files.tree(fixture.storeURL.appending(path: "blobs"))
        #expect(blobFiles.count == (placement == .files ? 1 : 0))
    }

    @Test("damage to bytes kept in the catalog is found by verify")
    func catalogDamageIsFound() async throws {
        let fixture = try await Self.fixture(.catalog)
        let note = try await fixture.store.createNote(title: "damage")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"))
        try await fixture.store.catalog.write { db in
            var bytes = try #require(try db.queryOne("SELECT bytes FROM blobContent")?.data("bytes"))
            bytes[1000] ^= 0x01
            try db.execute("UPDATE blobContent SET bytes = ?", [.blob(bytes)])
        }
        let report = try await fixture.store.verify()
        #expect(report.damage.map(\.hash) == [photo.blobHash])
        #expect(report.damage.first?.brokenAttachments.map(\.id) == [photo.id])
    }
}
