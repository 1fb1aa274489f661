import AttachmentStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// `addAttachments(to:fromFiles:progress:)`: many files copied in parallel and committed together.
/// Runs on every backend pass (files, a directory, S3, PostgreSQL + S3): the object-store passes
/// take the one-by-one commit after the parallel copy.
@Suite("Batch import with group commit", .timeLimit(.minutes(3)))
struct BatchImportTests {
    @Test("a batch adds every file in the order given, byte for byte, and the store verifies clean")
    func batchAddsEveryFileInOrder() async throws {
        let fixture = try await StoreFixture("batch")
        let note = try await fixture.store.createNote(title: "batch")
        _ = try await fixture.store.addAttachment(to: note.id, data: Data("before".utf8), filename: "before.txt")
        let files = try Corpus.files(in: "fifty").prefix(12).map { $0 }
        let copied = Mutex([Int: Int64]())
        let results = try await fixture.store.addAttachments(to: note.id, fromFiles: files) { index, bytes in
            copied.withLock { $0[index] = max($0[index] ?? 0, bytes) }
        }
        let attachments = try results.map { try $0.get() }
        #expect(attachments.map(\.position) == Array(1...12))
        #expect(attachments.map(\.filename) == files.map(\.lastPathComponent))
        for (file, attachment) in zip(files, attachments) {
            #expect(attachment.blobHash.rawValue == (try Files.sha256(file)))
            #expect(attachment.image != nil, "\(file.lastPathComponent) was probed")
            #expect(try await fixture.store.original(of: attachment.id).data() == (try Data(contentsOf: file)))
        }
        // Progress reached every file's full size.
        let sizes = try files.map { Int64(try Data(contentsOf: $0).count) }
        #expect(copied.withLock { $0 } == Dictionary(uniqueKeysWithValues: zip(sizes.indices, sizes)))
        let all = try await fixture.store.attachments(of: note.id)
        #expect(all.count == 13)
        #expect(Array(all.dropFirst().map(\.id)) == attachments.map(\.id))
        #expect(try await fixture.store.verify().isClean)
        #expect(try await fixture.blobAndTemporaryFiles().filter { $0.hasPrefix("tmp/") }.isEmpty)
    }

    @Test("unreadable files, folders and duplicates in a batch: each bad file fails alone, the same content is stored once")
    func badFilesFailAloneAndDuplicatesShareOneBlob() async throws {
        let fixture = try await StoreFixture("batchbad")
        let note = try await fixture.store.createNote(title: "mixed")
        let photo = try Corpus.file("special/seed-3.7mb.jpg")
        let missing = fixture.directory.appending("missing.jpg")
        let folder = fixture.directory.appending("a-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let results = try await fixture.store.addAttachments(to: note.id, fromFiles: [photo, missing, photo, folder, photo])

        #expect(results.count == 5)
        guard case .failure(.sourceUnreadable(let path, _)) = results[1] else { Issue.record("missing file: \(results[1])"); return }
        #expect(path == missing.path(percentEncoded: false))
        guard case .failure(.sourceNotAFile) = results[3] else { Issue.record("folder: \(results[3])"); return }
        let added = [results[0], results[2], results[4]].compactMap { try? $0.get() }
        #expect(added.count == 3)
        #expect(Set(added.map(\.blobHash)).count == 1)
        #expect(added.map(\.position) == [0, 1, 2])
        let stats = try await fixture.store.statistics()
        #expect(stats.attachments == 3)
        #expect(stats.blobs == 1)
        #expect(try await fixture.store.verify().isClean)
        #expect(try await fixture.blobAndTemporaryFiles().filter { $0.hasPrefix("tmp/") }.isEmpty)
    }

    @Test("a batch for a note that does not exist adds nothing and leaves no staged copy behind")
    func missingNoteAddsNothing() async throws {
        let fixture = try await StoreFixture("batchnonote")
        let files = try Corpus.files(in: "fifty").prefix(4).map { $0 }
        let absent = NoteID(rawValue: UUID().uuidString.lowercased())
        await #expect(throws: AttachmentStore.Error.noteNotFound(absent.rawValue)) {
            _ = try await fixture.store.addAttachments(to: absent, fromFiles: files)
        }
        let stats = try await fixture.store.statistics()
        #expect(stats.attachments == 0)
        #expect(try await fixture.blobAndTemporaryFiles().filter { $0.hasPrefix("tmp/") }.isEmpty)
        #expect(try await fixture.store.collectGarbage(olderThan: .zero).blobs == 0)
        #expect(try await fixture.store.verify().isClean)
    }

    @Test("a cancelled batch adds nothing and leaves no staged copy behind")
    func cancelledBatchAddsNothing() async throws {
        let fixture = try await StoreFixture("batchcancel")
        let note = try await fixture.store.createNote(title: "cancelled")
        let files = try Corpus.files(in: "fifty").map { $0 }
        let started = AsyncStream<Void>.makeStream()
        let task = Task {
            try await fixture.store.addAttachments(to: note.id, fromFiles: files) { _, _ in started.continuation.yield() }
        }
        for await _ in started.stream { break }
        task.cancel()
        let outcome = await task.result
        let attachments = try await fixture.store.attachments(of: note.id)
        switch outcome {
        case .failure: #expect(attachments.isEmpty)
        case .success(let results): #expect(attachments.count == results.count(where: { (try? $0.get()) != nil }))
        }
        #expect(try await fixture.blobAndTemporaryFiles().filter { $0.hasPrefix("tmp/") }.isEmpty)
        #expect(try await fixture.store.verify().isClean)
    }
}
