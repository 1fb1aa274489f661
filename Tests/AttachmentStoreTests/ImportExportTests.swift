import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Import and export", .timeLimit(.minutes(2)))
struct ImportExportTests {
    @Test("every good corpus file comes back byte for byte", arguments: Corpus.goodNames)
    func importThenExportIsByteIdentical(name: String) async throws {
        let fixture = try await StoreFixture()
        let source = try Corpus.file("good/\(name)")
        let note = try await fixture.store.createNote(title: "roundtrip")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: source)

        let exported = fixture.directory.appending("out-\(name)")
        try await fixture.store.original(of: attachment.id).write(to: exported)

        #expect(try Files.identical(source, exported))
        #expect(attachment.blobHash.rawValue == (try Files.sha256(source)))
        #expect(attachment.filename == name)
        #expect(attachment.mediaType.hasPrefix("image/"))
        #expect(attachment.image != nil)
    }

    @Test("reading an original as chunks yields exactly its bytes")
    func chunksYieldTheOriginal() async throws {
        let fixture = try await StoreFixture()
        let source = try Corpus.file("special/seed-3.7mb.jpg")
        let note = try await fixture.store.createNote(title: "chunks")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        var bytes = Data()
        var chunkCount = 0
        for try await chunk in try await fixture.store.original(of: attachment.id).chunks(chunkSize: 64 << 10) {
            #expect(chunk.count <= 64 << 10)
            bytes.append(contentsOf: chunk)
            chunkCount += 1
        }
        #expect(bytes == (try Data(contentsOf: source)))
        #expect(chunkCount > 50)
    }

    @Test("data and stream ingests store the same blob as a file ingest")
    func dataAndStreamMatchFile() async throws {
        let fixture = try await StoreFixture()
        let source = try Corpus.file("good/Elephants.jpg")
        let data = try Data(contentsOf: source)
        let note = try await fixture.store.createNote(title: "sources")
        let fromFile = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        let fromData = try await fixture.store.addAttachment(to: note.id, data: data, filename: "data.jpg")
        let chunks = stride(from: 0, to: data.count, by: 10_000).map { Array(data[$0..<min($0 + 10_000, data.count)]) }
        let stream = AsyncStream<[UInt8]> { continuation in
            chunks.forEach { continuation.yield($0) }
            continuation.finish()
        }
        let fromStream = try await fixture.store.addAttachment(to: note.id, bytes: stream, filename: "stream.jpg")
        #expect(fromFile.blobHash == fromData.blobHash)
        #expect(fromFile.blobHash == fromStream.blobHash)
        #expect(try await fixture.store.statistics().blobs == 1)
        #expect(try await fixture.store.attachments(of: note.id).map(\.position) == [0, 1, 2])
    }

    @Test("the media type comes from the bytes, not the file name")
    func mediaTypeIsSniffed() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "types")
        let text = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("bad/text.png"))
        let random = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("bad/random.jpg"))
        let svg = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("bad/script.svg"))
        let png = try await fixture.store.addAttachment(to: note.id, data: Data(contentsOf: Corpus.file("special/photo.png")), filename: "photo.jpg")
        let heic = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/photo.heic"))
        #expect(text.mediaType == "text/plain")
        #expect(text.image == nil)
        #expect(random.mediaType == "application/octet-stream")
        #expect(svg.mediaType == "image/svg+xml")
        #expect(svg.image == nil)
        #expect(png.mediaType == "image/png")
        #expect(heic.mediaType == "image/heic")
    }

    @Test("image attachments record stored size and EXIF orientation")
    func imageInfoIsRecorded() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "orientation")
        let rotated = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/orientation-6.jpg"))
        let seed = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/seed-3.7mb.jpg"))
        #expect(rotated.image?.orientation == 6)
        #expect(seed.image == Attachment.ImageInfo(width: 4032, height: 3024, orientation: 1))
    }

    @Test("an empty file is a valid attachment")
    func emptyFileIsStored() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "empty")
        let empty = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("bad/empty.jpg"))
        #expect(empty.byteCount == 0)
        #expect(try await fixture.store.original(of: empty.id).data().isEmpty)
    }
}
