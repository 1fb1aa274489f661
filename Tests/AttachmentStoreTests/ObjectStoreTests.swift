import AttachmentS3
@testable import AttachmentStore
import Foundation
import S3Client
import Testing
import TestSupport

/// An object store that passes everything to `base`, but holds each upload, after it has
/// reached the object store, until ``open()`` is called: a slow upload, frozen mid-ingest.
final class GatedObjectStore: BlobObjectStore {
    let base: any BlobObjectStore
    private let reached = AsyncStream<Void>.makeStream()
    private let gate = AsyncStream<Void>.makeStream()

    init(_ base: any BlobObjectStore) { self.base = base }

    var location: String { base.location }

    /// Returns once an upload has stored its object and is waiting at the gate.
    func uploadReachedGate() async {
        var iterator = reached.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Lets every held upload finish.
    func open() { gate.continuation.finish() }

    func upload(fileAt path: String, as hash: BlobHash, byteCount: Int64) async throws {
        try await base.upload(fileAt: path, as: hash, byteCount: byteCount)
        reached.continuation.yield()
        for await _ in gate.stream {}
    }

    func download(_ hash: BlobHash, toFile path: String) async throws { try await base.download(hash, toFile: path) }
    func size(of hash: BlobHash) async throws -> Int64? { try await base.size(of: hash) }
    func delete(_ hash: BlobHash) async throws { try await base.delete(hash) }
    func objects() -> AsyncThrowingStream<BlobObject, any Swift.Error> { base.objects() }
}

/// Whether the S3 variables of a running S3 server are set (`make test` starts one).
let s3IsConfigured = (try? S3Configuration.fromEnvironment()) != nil

@Suite("Originals in an S3 object store", .timeLimit(.minutes(3)),
       .enabled(if: s3IsConfigured, "needs the S3_* variables of a running S3 server (make test starts one)"))
struct ObjectStoreTests {
    /// An S3 object store under a prefix of its own.
    static func s3(_ label: String) throws -> S3BlobObjectStore {
        S3BlobObjectStore(client: S3Client(configuration: try S3Configuration.fromEnvironment()),
                          prefix: "store-tests/\(label)-\(UUID().uuidString.prefix(8))")
    }

    static func fixture(_ objectStore: any BlobObjectStore) async throws -> StoreFixture {
        var configuration = AttachmentStore.Configuration()
        configuration.originals = .objectStore(objectStore)
        configuration.thumbnails.generateAfterImport = false
        return try await StoreFixture(configuration: configuration)
    }

    @Test("originals live in the bucket, come back byte for byte, and are shared by identical content")
    func originalsLiveInTheBucket() async throws {
        let s3 = try Self.s3("round-trip")
        let fixture = try await Self.fixture(s3)
        let store = fixture.store
        #expect(store.blobPlacement == .objectStore)
        let source = try Corpus.file("special/seed-3.7mb.jpg")
        let note = try await store.createNote(title: "bucket")
        let first = try await store.addAttachment(to: note.id, fromFile: source)
        let second = try await store.addAttachment(to: note.id, fromFile: source)
        #expect(first.blobHash == second.blobHash)
        #expect(try await s3.size(of: first.blobHash) == first.byteCount)
        #expect(Files.tree(fixture.storeURL.appending(path: "blobs")).isEmpty, "no original is kept in blobs/")

        // A second server (no local copy) reads the bytes from the bucket and checks them.
        try FileManager.default.removeItem(at: fixture.storeURL.appending(path: "cache"))
        let exported = fixture.directory.appending("export.jpg")
        try await fixture.reopen().original(of: second.id).write(to: exported)
        #expect(try Files.identical(exported, source))
        #expect(try await store.thumbnail(for: first.id).width == 200)
        #expect(try await store.verify().isClean)
    }

    @Test("an object store that cannot be reached fails the ingest with a typed error and stores nothing")
    func unreachableObjectStoreStoresNothing() async throws {
        var configuration = try S3Configuration.fromEnvironment()
        configuration.endpoint = URL(string: "http://127.0.0.1:9")!
        configuration.retry = S3RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let fixture = try await Self.fixture(S3BlobObjectStore(client: S3Client(configuration: configuration), prefix: "unreachable"))
        let note = try await fixture.store.createNote(title: "offline")
        do {
            _ = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
            Issue.record("the ingest succeeded without an object store")
        } catch let error as AttachmentStore.Error {
            guard case .objectStore(.unavailable(let operation, _, _)) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(operation.hasPrefix("upload blob"))
            #expect(error.description.contains("nothing was stored"))
        }
        #expect(try await fixture.store.attachments(of: note.id).isEmpty)
        let stats = try await fixture.store.statistics()
        #expect(stats.blobs == 0 && stats.attachments == 0)
        #expect(Files.tree(fixture.storeURL.appending(path: "tmp")).isEmpty, "no staged copy is left behind")
    }

    @Test("gc deletes the objects nothing references, and objects left by a crash once past the grace period")
    func garbageCollectionDeletesObjects() async throws {
        let s3 = try Self.s3("gc")
        let fixture = try await Self.fixture(s3)
        let store = fixture.store
        let note = try await store.createNote(title: "gc")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        let kept = try await store.addAttachment(to: try await store.createNote(title: "keep").id, fromFile: try Corpus.file("special/seed-3.7mb.jpg"))

        // An object uploaded by an ingest that died before its catalog transaction.
        let orphanFile = fixture.directory.appending("orphan.bin")
        try Data("left behind by a crash".utf8).write(to: orphanFile)
        let orphan = try BlobFileScan.hash(fileAt: orphanFile.path(percentEncoded: false)).0
        try await s3.upload(fileAt: orphanFile.path(percentEncoded: false), as: orphan, byteCount: 22)

        try await store.deleteNote(note.id)
        let young = try await store.collectGarbage()
        #expect(young.blobs == 0 && young.orphanFiles == 0, "within the grace period nothing goes")
        #expect(try await s3.size(of: photo.blobHash) != nil)

        let report = try await store.collectGarbage(olderThan: .zero)
        #expect(report.blobs == 1)
        #expect(report.orphanFiles == 1)
        #expect(try await s3.size(of: photo.blobHash) == nil)
        #expect(try await s3.size(of: orphan) == nil)
        #expect(try await s3.size(of: kept.blobHash) == kept.byteCount)
        #expect(try await store.verify().isClean)
    }

    @Test("an upload in flight is never deleted by another server's gc")
    func uploadInFlightSurvivesGarbageCollection() async throws {
        let gated = GatedObjectStore(try Self.s3("lease"))
        let fixture = try await Self.fixture(gated)
        let other = try await fixture.reopen { $0.originals = .objectStore(gated.base) }
        let note = try await fixture.store.createNote(title: "slow upload")
        let source = try Corpus.file("good/Dune.jpg")
        let ingest = Task { try await fixture.store.addAttachment(to: note.id, fromFile: source) }
        await gated.uploadReachedGate()

        // The object is in the bucket, unreferenced; the uploader's claim keeps it there.
        let report = try await other.collectGarbage(olderThan: .zero)
        #expect(report.orphanFiles == 0 && report.keptInGracePeriod >= 1)
        gated.open()
        let attachment = try await ingest.value
        #expect(try await gated.base.size(of: attachment.blobHash) == attachment.byteCount)
        #expect(try await other.verify().isClean)
    }

    @Test("verify names an object whose bytes were replaced in the bucket, with the attachment it breaks")
    func verifyFindsDamagedObjects() async throws {
        let s3 = try Self.s3("verify")
        let fixture = try await Self.fixture(s3)
        let note = try await fixture.store.createNote(title: "damage")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        _ = try await s3.client.putObject(key: s3.key(for: photo.blobHash), data: Array("not the photo".utf8))
        let report = try await fixture.store.verify()
        #expect(!report.isClean)
        #expect(report.damage.first?.hash == photo.blobHash)
        #expect(report.damage.first?.brokenAttachments.map(\.id) == [photo.id])
    }

    @Test("a store made with an object store cannot be opened without it, nor a files store with one")
    func blobLocationIsChecked() async throws {
        let fixture = try await Self.fixture(try Self.s3("mismatch"))
        await #expect {
            try await fixture.reopen { $0.originals = .files }
        } throws: { error in
            guard case AttachmentStore.Error.blobStorageMismatch = error else { return false }
            return true
        }
        let files = try TemporaryDirectory("files")
        _ = try await AttachmentStore.create(at: files.appending("store"))
        var configuration = AttachmentStore.Configuration()
        configuration.originals = .objectStore(try Self.s3("mismatch-files"))
        await #expect {
            try await AttachmentStore.open(at: files.appending("store"), configuration: configuration)
        } throws: { error in
            guard case AttachmentStore.Error.blobStorageMismatch = error else { return false }
            return true
        }
    }
}
