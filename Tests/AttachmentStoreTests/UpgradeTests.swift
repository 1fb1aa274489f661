import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Stores made by earlier releases (`Tests/Fixtures/upgrade`) open with this code and keep every
/// byte and record; a catalog a later release migrated is refused untouched.
@Suite("Upgrades from earlier releases")
struct UpgradeTests {
    @Test("a store made by an earlier release opens, verifies clean and keeps every note, attachment, byte and thumbnail",
          arguments: try UpgradeFixture.all())
    func earlierStoreKeepsEverything(fixture: UpgradeFixture) async throws {
        let directory = try TemporaryDirectory("upgrade")
        let copy = try fixture.copy(into: directory)
        let store = try await AttachmentStore.open(at: copy)

        let report = try await store.verify()
        #expect(report.isClean, "\(report)")
        #expect(report.attachmentsChecked == fixture.contents.attachments.count)

        let notes = try await store.notes(limit: 1000)
        #expect(Set(notes.map(\.id.rawValue)) == Set(fixture.contents.notes.map(\.id)))
        for expected in fixture.contents.notes {
            let note = try #require(notes.first { $0.id.rawValue == expected.id })
            #expect(note.title == expected.title)
            #expect(note.body == expected.body)
        }
        for expected in fixture.contents.attachments {
            let attachment = try await store.attachment(AttachmentID(rawValue: expected.id))
            #expect(attachment.noteID.rawValue == expected.noteID)
            #expect(attachment.position == expected.position)
            #expect(attachment.filename == expected.filename)
            #expect(attachment.mediaType == expected.mediaType)
            #expect(attachment.byteCount == expected.byteCount)
            #expect(attachment.blobHash.rawValue == expected.blobHash)
            let original = try await store.original(of: attachment.id).data()
            #expect(Files.sha256(original) == expected.blobHash, "the original of \(expected.filename)")
        }
        await #expect(throws: AttachmentStore.Error.attachmentNotFound(fixture.contents.deletedAttachment)) {
            try await store.attachment(AttachmentID(rawValue: fixture.contents.deletedAttachment))
        }

        // The thumbnails the earlier release cached are served as they are, not made again.
        let cached = try FileManager.default.subpathsOfDirectory(atPath: fixture.folder.appending(path: "cache").path(percentEncoded: false))
            .filter { $0.hasSuffix("-200") }
        #expect(!cached.isEmpty)
        #expect(try await store.thumbnailCacheUsage().files == cached.count)
        for expected in fixture.contents.attachments where expected.mediaType.hasPrefix("image/") {
            let thumbnail = try await store.thumbnail(for: AttachmentID(rawValue: expected.id), maxPixelSize: 200)
            let file = try #require(cached.first { $0.hasSuffix("/\(expected.blobHash)-200") })
            #expect(thumbnail.data == (try Data(contentsOf: fixture.folder.appending(path: "cache/" + file))))
        }
        #expect(try await store.verify().isClean)
    }

    @Test("an earlier store's notes are listed by title once it opens (v18 fills their sort keys), and its change feed is left as it was")
    func earlierStoreSortsByTitle() async throws {
        let fixture = try #require(try UpgradeFixture.all().last)
        let directory = try TemporaryDirectory("upgrade-titles")
        let copy = try fixture.copy(into: directory)
        let feedBefore = try UpgradeFixture.changeFeed(copy)
        let store = try await AttachmentStore.open(at: copy)
        let byTitle = try await store.notes(order: .title, limit: 1000)
        let expected = fixture.contents.notes.sorted { (NoteTitleSortKey.key(for: $0.title), $0.id) < (NoteTitleSortKey.key(for: $1.title), $1.id) }
        #expect(byTitle.map(\.id.rawValue) == expected.map(\.id))
        #expect(Set(fixture.contents.notes.map(\.title)).count > 1, "the fixture has titles to sort")
        #expect(try UpgradeFixture.changeFeed(copy) == feedBefore, "a derived column is no change a peer must hear of")
        // The feed's trigger, set aside while the keys were filled, is back.
        let renamed = try await store.updateNote(byTitle[0].id, title: "zz renamed")
        #expect(try UpgradeFixture.changeFeed(copy).last?.hasSuffix("note \(renamed.id.rawValue)") == true)
        #expect(try await store.notes(order: .title, limit: 1000).last?.id == renamed.id)
    }

    @Test("a catalog a later release migrated is refused with both releases named, and not a byte of it changes")
    func laterCatalogIsRefusedUntouched() async throws {
        let fixture = try #require(try UpgradeFixture.all().last)
        let directory = try TemporaryDirectory("future")
        let copy = try fixture.copy(into: directory)
        try UpgradeFixture.pretendMigratedByLaterRelease(copy, release: "9.1.0", migration: "v99: from the future")
        let catalog = copy.appending(path: "catalog.sqlite")
        let before = try Data(contentsOf: catalog)
        let filesBefore = try FileManager.default.subpathsOfDirectory(atPath: copy.path(percentEncoded: false)).sorted()

        for attempt in 1...2 {
            do {
                _ = try await AttachmentStore.open(at: copy)
                Issue.record("attempt \(attempt): the catalog from 9.1.0 was opened")
            } catch AttachmentStore.Error.catalogFromNewerRelease(let cause) {
                let message = cause.message
                #expect(message.contains("attach 9.1.0"), "\(message)")
                #expect(message.contains("attach \(SchemaHistory.release)"), "\(message)")
                #expect(message.contains("v99: from the future"), "\(message)")
            }
        }
        #expect(try Data(contentsOf: catalog) == before, "catalog.sqlite changed")
        // SQLite gives even a read-only reader of a WAL catalog its -shm index and an empty -wal.
        let filesAfter = try FileManager.default.subpathsOfDirectory(atPath: copy.path(percentEncoded: false)).sorted()
            .filter { !["catalog.sqlite-shm", "catalog.sqlite-wal"].contains($0) }
        let wal = copy.appending(path: "catalog.sqlite-wal").path(percentEncoded: false)
        #expect((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int ?? 0 == 0, "the catalog's -wal holds changes")
        #expect(filesAfter == filesBefore, "added: \(Set(filesAfter).subtracting(filesBefore)), gone: \(Set(filesBefore).subtracting(filesAfter))")
    }

    @Test("a new catalog records the release that made it")
    func newCatalogRecordsItsRelease() async throws {
        let directory = try TemporaryDirectory("release")
        _ = try await AttachmentStore.create(at: directory.appending("store"))
        #expect(try UpgradeFixture.recordedRelease(directory.appending("store")) == SchemaHistory.release)
    }
}
