import AttachmentStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// `backup` and `restore` on every backend: a snapshot taken while the store is in use, whose
/// restore holds every acknowledged upload byte for byte, and incremental backups.
@Suite("Backups", .timeLimit(.minutes(5)))
struct BackupTests {
    /// An upload the store acknowledged, and when.
    struct Acknowledged: Sendable {
        var id: AttachmentID
        var hash: String
        var at: ContinuousClock.Instant
    }

    /// The uploads acknowledged so far, shared by the clients.
    final class Acknowledgements: Sendable {
        private let list = Mutex<[Acknowledged]>([])
        func append(_ upload: Acknowledged) { list.withLock { $0.append(upload) } }
        var all: [Acknowledged] { list.withLock { $0 } }
    }

    @Test("a backup taken while four clients upload restores every upload acknowledged before it began, byte for byte, and verifies clean")
    func backupWhileUploading() async throws {
        let fixture = try await StoreFixture("backup-busy")
        let store = fixture.store
        let photos = Array(try Corpus.files(in: "fifty").prefix(32))
        let hashes = try Dictionary(uniqueKeysWithValues: photos.map { ($0, try Files.sha256($0)) })
        let note = try await store.createNote(title: "Busy day")
        let acknowledged = Acknowledgements()

        let directory = try TemporaryDirectory("backup-busy-out")
        let (started, report) = try await withThrowingTaskGroup(of: Void.self) { clients in
            for client in 0..<4 {
                let mine = photos[(client * 8)..<(client * 8 + 8)]
                clients.addTask {
                    for photo in mine {
                        let attachment = try await store.addAttachment(to: note.id, fromFile: photo)
                        let record = Acknowledged(id: attachment.id, hash: hashes[photo]!, at: .now)
                        acknowledged.append(record)
                    }
                }
            }
            while acknowledged.all.count < 6 { try await Task.sleep(for: .milliseconds(5)) }
            let started = ContinuousClock.now
            let report = try await store.backup(to: directory.appending("backup"))
            try await clients.waitForAll()
            return (started, report)
        }
        let before = acknowledged.all.filter { $0.at < started }
        #expect(before.count >= 6)
        #expect(report.attachments >= before.count)
        #expect(report.blobs == report.copiedBlobs + report.linkedBlobs + report.reusedBlobs)

        let restored = try await AttachmentStore.restore(from: directory.appending("backup"), to: directory.appending("restored"))
        #expect(restored.attachments == report.attachments)
        let copy = try await AttachmentStore.open(at: directory.appending("restored"))
        for upload in before {
            let attachment = try await copy.attachment(upload.id)
            #expect(attachment.blobHash.rawValue == upload.hash)
            #expect(Files.sha256(try await copy.original(of: upload.id).data()) == upload.hash)
        }
        let verify = try await copy.verify()
        #expect(verify.isClean, "\(verify)")
        #expect(verify.unreferencedFiles == 0 && verify.temporaryFiles == 0)
        #expect(try await AttachmentStore.open(at: directory.appending("backup")).verify().isClean)
    }

    @Test("a second backup copies only the new originals, keeps the rest, and drops what the store no longer references")
    func backupsAreIncremental() async throws {
        let fixture = try await StoreFixture("backup-incremental")
        let store = fixture.store
        let photos = try Corpus.files(in: "fifty")
        let note = try await store.createNote(title: "Trip")
        var added: [AttachmentID] = []
        for photo in photos.prefix(20) { added.append(try await store.addAttachment(to: note.id, fromFile: photo).id) }
        let directory = try TemporaryDirectory("backup-incremental-out")
        let backup = directory.appending("backup")

        let first = try await store.backup(to: backup)
        #expect(first.blobs == 20)
        #expect(first.copiedBlobs + first.linkedBlobs == 20)
        #expect(first.reusedBlobs == 0)

        for photo in photos[20..<30] { _ = try await store.addAttachment(to: note.id, fromFile: photo) }
        try await store.deleteAttachment(added[0])
        _ = try await store.collectGarbage(olderThan: .zero)
        let second = try await store.backup(to: backup)
        #expect(second.blobs == 29)
        #expect(second.copiedBlobs + second.linkedBlobs == 10, "only the 10 new photos move")
        #expect(second.copiedBytes + second.linkedBytes == (try photos[20..<30].reduce(Int64(0)) { $0 + (try Files.size($1)) }))
        #expect(second.reusedBlobs == 19)
        #expect(second.removedBlobs == 1)

        let verify = try await AttachmentStore.open(at: backup).verify()
        #expect(verify.isClean && verify.attachmentsChecked == 29 && verify.unreferencedFiles == 0, "\(verify)")
    }

    @Test("a backup on another filesystem copies every original and stays a store of its own")
    func backupOnAnotherFilesystemCopies() async throws {
        let shm = URL(filePath: "/dev/shm", directoryHint: .isDirectory)
        guard let tmpDevice = try? Files.device(FileManager.default.temporaryDirectory), let shmDevice = try? Files.device(shm),
              tmpDevice != shmDevice, !StoreFixture.usesObjectStore else { return }
        let fixture = try await StoreFixture("backup-elsewhere")
        let note = try await fixture.store.createNote(title: "Elsewhere")
        for photo in try Corpus.files(in: "fifty").prefix(3) { _ = try await fixture.store.addAttachment(to: note.id, fromFile: photo) }
        let destination = shm.appending(path: "attachstore-backup-\(UUID().uuidString.prefix(8))", directoryHint: .isDirectory)
        defer {
            do { try Files.removeTree(destination) } catch { Issue.record("the backup in /dev/shm stays: \(error)") }
        }
        let report = try await fixture.store.backup(to: destination)
        #expect(report.copiedBlobs == 3 && report.linkedBlobs == 0)
        #expect(try await AttachmentStore.open(at: destination).verify().isClean)
    }

    @Test("a backup into the store itself, into a folder holding something else, or a restore over a store is refused and changes nothing")
    func wrongDestinationsAreRefused() async throws {
        let fixture = try await StoreFixture("backup-refused")
        let note = try await fixture.store.createNote(title: "Keep")
        _ = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("special/photo.png"))
        for inside in [fixture.storeURL, fixture.storeURL.appending(path: "backups")] {
            await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.backup(to: inside) }
        }
        let directory = try TemporaryDirectory("backup-refused-out")
        let occupied = directory.appending("documents")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: occupied.appending(path: "letter.txt"))
        await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.backup(to: occupied) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path(percentEncoded: false)) == ["letter.txt"])

        _ = try await fixture.store.backup(to: directory.appending("backup"))
        await #expect(throws: AttachmentStore.Error.self) {
            try await AttachmentStore.restore(from: directory.appending("backup"), to: occupied)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied.path(percentEncoded: false)) == ["letter.txt"])
        #expect(try await fixture.store.verify().isClean)
    }
}
