@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Uploads of a store whose originals live in an object store: pieces in the object store, the
/// writer lease in the catalog, so any server of the store continues an upload (run by the
/// passes of `make test` with `ATTACH_TEST_BLOBS` set).
@Suite("Resumable uploads in the catalog and the object store", .timeLimit(.minutes(3)),
       .enabled(if: StoreFixture.usesObjectStore, "needs ATTACH_TEST_BLOBS (make test's passes 2-4)"))
struct SharedResumableUploadTests {
    typealias Pieces = ResumableUploadTests.Pieces

    /// A store with a note and a new upload of the corpus photo to it.
    static func startedUpload() async throws -> (fixture: StoreFixture, note: NoteID, photo: Data, upload: ResumableUpload) {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "n")
        let photo = try ResumableUploadTests.photo()
        let upload = try await fixture.store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        return (fixture, note.id, photo, upload)
    }

    @Test("gc with no grace period keeps the pieces of an upload in progress; once it finishes they go and verify is clean")
    func garbageCollectionKeepsLivePieces() async throws {
        let (fixture, _, photo, upload) = try await Self.startedUpload()
        let store = fixture.store
        #expect(ResumableUploadTests.sharesUploads(store))
        let half = photo.count / 2
        _ = try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo.prefix(half)))
        let during = try await store.collectGarbage(olderThan: .zero)
        #expect(during.orphanFiles == 0 && during.expiredUploads == 0)
        let checked = try await store.verify()
        #expect(checked.isClean && checked.unreferencedFiles == 0)
        let done = try await store.appendToUpload(upload.id, at: Int64(half), bytes: Pieces(data: photo.suffix(from: half)))
        #expect(try await store.original(of: try #require(done.attachment)).data() == photo)
        // Both pieces are now objects nothing references.
        let after = try await store.collectGarbage(olderThan: .zero)
        #expect(after.orphanFiles == 2)
        #expect(try await store.verify().isClean)
        #expect(try await store.original(of: try #require(done.attachment)).data() == photo)
    }

    @Test("a writer whose server died holds the upload only until its lease runs out; then another continues it")
    func deadWritersLeaseRunsOut() async throws {
        let (fixture, _, photo, upload) = try await Self.startedUpload()
        let store = fixture.store
        // The dead server: it took the lease and stopped renewing it, never releasing it.
        guard case .locked(let writer) = try await store.uploadStaging.lock(upload.id, holder: nil), let dead = writer as? SharedUploadWriter else {
            Issue.record("the upload could not be locked")
            return
        }
        dead.watch.cancel()
        await #expect(throws: AttachmentStore.Error.upload(.busy(upload.id))) {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo))
        }
        // Its lease runs out.
        try await store.catalog.write { db in
            _ = try db.execute("UPDATE resumableUpload SET writerExpiresAt = ? WHERE id = ?",
                               [.date(Date().addingTimeInterval(-1)), .text(upload.id.rawValue)])
        }
        let done = try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo))
        #expect(try await store.original(of: try #require(done.attachment)).data() == photo)
    }

    @Test("a piece gone from the object store fails the upload's last request with a clear error and adds no attachment")
    func missingPieceAddsNothing() async throws {
        let (fixture, note, photo, upload) = try await Self.startedUpload()
        let store = fixture.store
        let half = photo.count / 2
        _ = try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo.prefix(half)))
        let pieces = try await store.catalog.read { db in try ResumableUploadRecord.parts(upload.id, in: db) }
        let objectStore = try #require(store.configuration.objectStore)
        try await objectStore.delete(try #require(pieces.first).hash)
        await #expect(throws: AttachmentStore.Error.objectStore(.missing(try #require(pieces.first).hash))) {
            try await store.appendToUpload(upload.id, at: Int64(half), bytes: Pieces(data: photo.suffix(from: half)))
        }
        #expect(try await store.attachments(of: note).isEmpty)
        #expect(try await store.verify().isClean)
    }

    @Test("a piece whose writer lost its lease meanwhile counts for nothing")
    func pieceOfALostLeaseCountsForNothing() async throws {
        let (fixture, _, photo, upload) = try await Self.startedUpload()
        let store = fixture.store
        guard case .locked(let writer) = try await store.uploadStaging.lock(upload.id, holder: nil) else {
            Issue.record("the upload could not be locked")
            return
        }
        // Another server took the upload over while this writer was receiving.
        try await store.catalog.write { db in
            _ = try db.execute("UPDATE resumableUpload SET writer = 'another server' WHERE id = ?", [.text(upload.id.rawValue)])
        }
        await #expect(throws: AttachmentStore.Error.upload(.busy(upload.id))) {
            try await writer.append(Pieces(data: photo.prefix(1000)), at: 0, length: Int64(photo.count), checksum: nil)
        }
        await writer.release()
        #expect(try await store.resumableUpload(upload.id).offset == 0)
        // Its piece's object was dropped with the refused piece.
        let report = try await store.verify()
        #expect(report.isClean && report.unreferencedFiles == 0)
    }

    @Test("a writer on one server whose bytes stopped arriving hands the upload over to a request on another server")
    func silentWriterOnAnotherServerHandsOver() async throws {
        let fixture = try await StoreFixture()
        let sent = 700_000
        let (photo, upload, silent) = try await UploadHandoverTests.silentUpload(fixture, sent: sent)
        try await fixture.asAnotherServer { other in
            // The other server knows nothing of the first one's request: it asks through the catalog.
            #expect(other.uploadHolders.holder(of: upload.id) == nil)
            let settled = try await other.settledUpload(upload.id)
            #expect(settled.offset == Int64(sent))
            await #expect(throws: UploadHandoverTests.LinkDied.self) { try await silent.value }
            let done = try await other.appendToUpload(upload.id, at: Int64(sent), bytes: Pieces(data: photo.suffix(from: sent)))
            #expect(try await other.original(of: try #require(done.attachment)).data() == photo)
        }
        #expect(try await fixture.store.verify().isClean)
    }
}
