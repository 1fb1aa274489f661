import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A byte stream that yields some chunks, then fails, as a dropped upload does.
struct FailingByteStream: AsyncSequence {
    struct Dropped: Error {}
    let chunks: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: Int
        mutating func next() async throws -> [UInt8]? {
            guard remaining > 0 else { throw Dropped() }
            remaining -= 1
            return [UInt8](repeating: 0xAB, count: 300_000)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks) }
}

@Suite("Failures leave the store as it was", .timeLimit(.minutes(3)))
struct FailureTests {
    @Test("a stream that fails mid-ingest stores nothing and leaves no temporary file")
    func failingStreamStoresNothing() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "upload")
        await #expect(throws: FailingByteStream.Dropped.self) {
            try await fixture.store.addAttachment(to: note.id, bytes: FailingByteStream(chunks: 10), filename: "dropped.bin")
        }
        #expect(try await fixture.store.attachments(of: note.id).isEmpty)
        #expect(try await fixture.blobAndTemporaryFiles().isEmpty)
    }

    @Test("a directory given where a file is expected is a typed error and stores nothing")
    func directoryIsNotAFile() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "folder")
        let folder = fixture.directory.appending("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        await #expect(throws: AttachmentStore.Error.sourceNotAFile(path: folder.path(percentEncoded: false))) {
            try await fixture.store.addAttachment(to: note.id, fromFile: folder)
        }
        let missing = fixture.directory.appending("missing.jpg")
        await #expect(throws: AttachmentStore.Error.sourceUnreadable(path: missing.path(percentEncoded: false), cause: .system(SystemError("open", code: ENOENT)))) {
            try await fixture.store.addAttachment(to: note.id, fromFile: missing)
        }
        #expect(try await fixture.blobAndTemporaryFiles().isEmpty)
    }

    @Test("a cancelled import stores nothing")
    func cancelledImportStoresNothing() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "cancel")
        let task = Task {
            try await fixture.store.addAttachment(to: note.id, bytes: FailingByteStream(chunks: .max), filename: "endless.bin")
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        _ = await task.result
        #expect(try await fixture.store.attachments(of: note.id).isEmpty)
        #expect(try await fixture.blobAndTemporaryFiles().isEmpty)
    }

    @Test("opening something that is not a store is refused and changes nothing")
    func notAStoreIsRefused() async throws {
        let directory = try TemporaryDirectory("notastore")
        let file = directory.appending("file.txt")
        try Data("hello".utf8).write(to: file)
        await #expect(throws: AttachmentStore.Error.self) { try await AttachmentStore.open(at: file) }
        await #expect(throws: AttachmentStore.Error.self) { try await AttachmentStore.create(at: directory.url) }
        await #expect(throws: AttachmentStore.Error.storeNotFound(path: directory.appending("none").path(percentEncoded: false))) {
            try await AttachmentStore.open(at: directory.appending("none"))
        }
        let fakeCatalog = directory.appending("fake")
        try FileManager.default.createDirectory(at: fakeCatalog.appending(path: "blobs"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: fakeCatalog.appending(path: "tmp"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4096).write(to: fakeCatalog.appending(path: "catalog.sqlite"))
        await #expect(throws: AttachmentStore.Error.self) { try await AttachmentStore.open(at: fakeCatalog) }
        #expect(try Data(contentsOf: fakeCatalog.appending(path: "catalog.sqlite")) == Data(repeating: 7, count: 4096))
        #expect(Files.tree(directory.url) == ["fake/catalog.sqlite", "file.txt"])
    }
}
