import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Content addressing", .timeLimit(.minutes(2)))
struct DeduplicationTests {
    @Test("one photo saved into 50 notes is stored once and stats count the savings")
    func fiftyCopiesShareOneBlob() async throws {
        let fixture = try await StoreFixture()
        let seed = try Corpus.file("special/seed-3.7mb.jpg")
        let size = Int64(try Data(contentsOf: seed).count)
        for index in 0..<50 {
            let note = try await fixture.store.createNote(title: "copy \(index)")
            _ = try await fixture.store.addAttachment(to: note.id, fromFile: seed)
        }
        let stats = try await fixture.store.statistics()
        #expect(stats.notes == 50)
        #expect(stats.attachments == 50)
        #expect(stats.blobs == 1)
        #expect(stats.blobBytes == size)
        #expect(stats.referencedBytes == 50 * size)
        #expect(stats.bytesSavedByDeduplication == 49 * size)
        // One copy of the photo on disk (rounded up to whole blocks; with originals elsewhere, the
        // one local copy), and nothing else but the catalog (its write-ahead log holds up to ~4 MB
        // until SQLite checkpoints it, so its size varies from run to run), the thumbnail cache
        // and the folders themselves.
        let local = stats.originalsOnDisk + stats.originalCopiesOnDisk
        #expect(local >= size && local < size + (64 << 10))
        #expect(stats.bytesOnDisk < local + stats.catalogOnDisk + stats.thumbnailCacheOnDisk + (1 << 20))
        #expect(try await fixture.blobAndTemporaryFiles().count == 1)
    }

    @Test("replacing an attachment's data gives it a new hash and leaves the old blob to gc")
    func replaceMakesOldBlobGarbage() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "replace")
        let first = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Elephants.jpg"))
        let replaced = try await fixture.store.replaceAttachmentData(first.id, fromFile: Corpus.file("special/photo.png"))
        #expect(replaced.id == first.id)
        #expect(replaced.position == first.position)
        #expect(replaced.blobHash != first.blobHash)
        #expect(replaced.mediaType == "image/png")
        #expect(try await fixture.store.original(of: first.id).data() == (try Data(contentsOf: Corpus.file("special/photo.png"))))

        let report = try await fixture.store.collectGarbage(olderThan: .zero)
        #expect(report.blobs == 1)
        #expect(try await fixture.blobAndTemporaryFiles().count == 1)
        #expect(try await fixture.store.verify().isClean)
    }
}
