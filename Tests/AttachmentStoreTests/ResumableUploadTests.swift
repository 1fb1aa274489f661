@testable import AttachmentStore
import CatalogSQL
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite("Resumable uploads: pieces that continue where the last stopped, durable, finished once", .timeLimit(.minutes(3)))
struct ResumableUploadTests {
    /// Chunks of `data`, then — when `failAfter` is set — an error after that many bytes, as a
    /// dropped connection ends a request body.
    struct Pieces: AsyncSequence {
        typealias Element = Data
        let data: Data
        var chunk = 64 << 10
        var failAfter: Int?
        var pause: Duration?

        struct Cut: Error {}

        struct AsyncIterator: AsyncIteratorProtocol {
            let pieces: Pieces
            var offset = 0
            mutating func next() async throws -> Data? {
                if let failAfter = pieces.failAfter, offset >= failAfter { throw Cut() }
                guard offset < pieces.data.count else { return nil }
                if let pause = pieces.pause { try await Task.sleep(for: pause) }
                let end = Swift.min(offset + pieces.chunk, pieces.data.count, pieces.failAfter ?? .max)
                defer { offset = end }
                let base = pieces.data.startIndex
                return pieces.data.subdata(in: base + offset..<base + end)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pieces: self) }
    }

    static func photo() throws -> Data { try Data(contentsOf: try Corpus.file("good/Dune.jpg")) }

    static func sha256(_ data: Data) -> UploadChecksum { UploadChecksum(sha256: Array(SHA256.hash(data: data)))! }

    /// Whether `store` keeps its uploads in the catalog and the object store (its originals live
    /// in an object store) rather than in `uploads/`.
    static func sharesUploads(_ store: AttachmentStore) -> Bool { store.uploadStaging is SharedUploadStaging }

    /// Waits until some request holds the writer lock of `id`.
    static func waitUntilWriterHolds(_ id: UploadID, in store: AttachmentStore) async throws {
        for _ in 0..<1000 {
            switch try await store.uploadStaging.lock(id, holder: nil) {
            case .busy: return
            case .gone: Issue.record("upload \(id) is gone"); return
            case .locked(let writer): await writer.release()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no writer took upload \(id)")
    }

    /// Whether the store still keeps bytes of upload `id` (a part file, or pieces in the catalog).
    static func holdsBytes(of id: UploadID, in fixture: StoreFixture) async throws -> Bool {
        guard sharesUploads(fixture.store) else {
            return FileManager.default.fileExists(atPath: fixture.storeURL.appending(path: "uploads/\(id).part").path)
        }
        return try await !fixture.store.catalog.read { db in try ResumableUploadRecord.parts(id, in: db) }.isEmpty
    }

    /// Puts a finished upload back as a crash between adding its attachment and dropping its
    /// bytes leaves it: every byte held, not marked finished.
    static func undoFinishing(_ id: UploadID, of photo: Data, in fixture: StoreFixture) async throws {
        guard sharesUploads(fixture.store) else {
            try photo.write(to: fixture.storeURL.appending(path: "uploads/\(id).part"))
            return
        }
        // The whole file's piece is the blob's own object, which the finished upload left there.
        let hash = try #require(BlobHash(rawValue: SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined()))
        try await fixture.store.catalog.write { db in
            _ = try db.execute("UPDATE resumableUpload SET finishedAt = NULL WHERE id = ?", [.text(id.rawValue)])
            _ = try db.execute("INSERT INTO resumableUploadPart (upload, startsAt, byteCount, hash) VALUES (?, 0, ?, ?)",
                               [.text(id.rawValue), .integer(Int64(photo.count)), .text(hash.rawValue)])
        }
    }

    @Test("three pieces become one attachment of the note, byte-identical, and the upload then names it")
    func piecesBecomeAnAttachment() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "trip")
        let photo = try Self.photo()
        let upload = try await store.createUpload(for: note.id, filename: "Dune.jpg", length: Int64(photo.count), metadata: ["kind": "photo"])
        #expect(upload.offset == 0 && upload.attachment == nil)
        let cuts = [0, photo.count / 3, 2 * photo.count / 3, photo.count]
        var last = upload
        for (from, to) in zip(cuts, cuts.dropFirst()) {
            last = try await store.appendToUpload(upload.id, at: Int64(from), bytes: Pieces(data: photo.subdata(in: from..<to)))
            #expect(last.offset == Int64(to))
        }
        let attachmentID = try #require(last.attachment)
        let attachment = try await store.attachment(attachmentID)
        #expect(attachment.noteID == note.id && attachment.filename == "Dune.jpg" && attachment.mediaType == "image/jpeg")
        #expect(try await store.original(of: attachmentID).data() == photo)
        let asked = try await store.resumableUpload(upload.id)
        #expect(asked.attachment == attachmentID && asked.offset == asked.length && asked.metadata == ["kind": "photo"])
        #expect(!FileManager.default.fileExists(atPath: fixture.storeURL.appending(path: "uploads/\(upload.id).part").path))
    }

    @Test("a piece at the wrong offset, past the length, or with the wrong checksum is refused and changes nothing")
    func wrongPiecesChangeNothing() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try Self.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        let first = photo.prefix(1000)
        _ = try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: first))
        await #expect(throws: AttachmentStore.Error.upload(.offsetMismatch(expected: 1000, given: 0))) {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: first))
        }
        await #expect(throws: AttachmentStore.Error.upload(.exceedsLength(Int64(photo.count)))) {
            try await store.appendToUpload(upload.id, at: 1000, bytes: Pieces(data: photo + Data(count: 10)))
        }
        let rest = photo.suffix(from: 1000)
        await #expect(throws: AttachmentStore.Error.upload(.checksumMismatch)) {
            try await store.appendToUpload(upload.id, at: 1000, bytes: Pieces(data: rest), checksum: Self.sha256(Data("other".utf8)))
        }
        #expect(try await store.resumableUpload(upload.id).offset == 1000)
        let done = try await store.appendToUpload(upload.id, at: 1000, bytes: Pieces(data: rest), checksum: Self.sha256(rest))
        #expect(try await store.original(of: try #require(done.attachment)).data() == photo)
    }

    @Test("bytes cut off midway are kept and durable; with a checksum none of the cut piece counts")
    func cutPieces() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "n")
        let photo = try Self.photo()
        let plain = try await fixture.store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        await #expect(throws: Pieces.Cut.self) {
            try await fixture.store.appendToUpload(plain.id, at: 0, bytes: Pieces(data: photo, failAfter: 300_000))
        }
        let checked = try await fixture.store.createUpload(for: note.id, filename: "b.jpg", length: Int64(photo.count))
        await #expect(throws: Pieces.Cut.self) {
            try await fixture.store.appendToUpload(checked.id, at: 0, bytes: Pieces(data: photo, failAfter: 300_000), checksum: Self.sha256(photo))
        }
        // Another handle, as a restarted server would open the store, sees what was kept.
        let reopened = try await fixture.reopen()
        #expect(try await reopened.resumableUpload(plain.id).offset == 300_000)
        #expect(try await reopened.resumableUpload(checked.id).offset == 0)
        let done = try await reopened.appendToUpload(plain.id, at: 300_000, bytes: Pieces(data: photo.suffix(from: 300_000)))
        #expect(try await reopened.original(of: try #require(done.attachment)).data() == photo)
    }

    @Test("finishing again after a crash between adding the attachment and dropping the part adds it once")
    func finishingIsIdempotent() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try Self.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        let done = try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo))
        // The crash: every byte is still held, and the upload is not marked finished.
        try await Self.undoFinishing(upload.id, of: photo, in: fixture)
        #expect(try await store.resumableUpload(upload.id).attachment == nil)
        let again = try await store.finishUpload(upload.id)
        #expect(again.attachment == done.attachment)
        #expect(try await store.attachments(of: note.id).count == 1)
        #expect(try await !Self.holdsBytes(of: upload.id, in: fixture))
        #expect(try await store.verify().isClean)
    }

    @Test("a second writer is told the upload is busy; cancelling removes it")
    func busyAndCancel() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try Self.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        // A writer whose bytes arrive only when the test says so: it holds the upload meanwhile.
        let (bytes, sender) = AsyncStream<Data>.makeStream()
        let slow = Task { try await store.appendToUpload(upload.id, at: 0, bytes: bytes) }
        sender.yield(photo.prefix(100_000))
        try await Self.waitUntilWriterHolds(upload.id, in: store)
        await #expect(throws: AttachmentStore.Error.upload(.busy(upload.id))) {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo.prefix(10)))
        }
        await #expect(throws: AttachmentStore.Error.upload(.busy(upload.id))) { try await store.cancelUpload(upload.id) }
        sender.yield(Data(photo[100_000..<200_000]))
        sender.finish()
        #expect(try await slow.value.offset == 200_000)
        try await store.cancelUpload(upload.id)
        await #expect(throws: AttachmentStore.Error.upload(.notFound(upload.id))) { try await store.resumableUpload(upload.id) }
    }

    @Test("gc removes an expired upload, but never while a writer holds its part; an expired upload refuses bytes")
    func garbageCollectionOfExpiredUploads() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try Self.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count), lifetime: .zero)
        await #expect(throws: AttachmentStore.Error.upload(.expired(upload.id))) {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo.prefix(10)))
        }
        // A writer (in another process, or on another server) holds the upload and has 1,000
        // bytes of it.
        guard case .locked(let writer) = try await store.uploadStaging.lock(upload.id, holder: nil) else {
            Issue.record("the expired upload could not be locked")
            return
        }
        #expect(try await writer.append(Pieces(data: Data(count: 1000)), at: 0, length: Int64(photo.count), checksum: nil) == 1000)
        let folder = fixture.storeURL.appending(path: "uploads").path
        #expect(try await store.collectGarbage(olderThan: .zero).expiredUploads == 0)
        if !Self.sharesUploads(store) {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["\(upload.id).json", "\(upload.id).part"])
        }
        await writer.release()
        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.expiredUploads == 1 && report.expiredUploadBytes == 1000)
        if Self.sharesUploads(store) {
            #expect(try await store.uploadStaging.progress(of: upload.id) == nil)
        } else {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
        #expect(try await store.verify().isClean)
    }

    @Test("an upload for a missing note, or of no bytes, is refused; an identifier that is not one is no identifier")
    func refusedUploads() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        await #expect(throws: AttachmentStore.Error.noteNotFound("00000000-0000-0000-0000-000000000000")) {
            try await store.createUpload(for: NoteID(rawValue: "00000000-0000-0000-0000-000000000000"), filename: "a", length: 1)
        }
        let note = try await store.createNote(title: "n")
        await #expect(throws: AttachmentStore.Error.upload(.invalidLength(0))) { try await store.createUpload(for: note.id, filename: "a", length: 0) }
        for hostile in ["../../catalog.sqlite", "0123456789abcdef0123456789abcde/", "0123456789ABCDEF0123456789ABCDEF", ""] {
            #expect(UploadID(rawValue: hostile) == nil)
        }
    }
}
