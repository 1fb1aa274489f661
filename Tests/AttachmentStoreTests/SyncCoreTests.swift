import AttachmentStore
import Foundation
import Testing
import TestSupport

/// A peer reached in-process: copies a blob's bytes from another store through a `BlobDownload`.
struct InProcessPeer: RemoteBlobSource {
    let peer: AttachmentStore

    func fetch(_ hash: BlobHash, byteCount: Int64, into store: AttachmentStore) async throws {
        let file = try await peer.blobFile(hash)
        let download = try await store.blobDownload(for: hash, byteCount: byteCount)
        let data = try Data(contentsOf: file.url)
        try await download.append(data[Int(download.resumeOffset)...])
        try await download.finish()
    }

    /// The peer holds what it has present, and proves it with the sample's bytes.
    func holder(of hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> String? {
        guard (try? await peer.hasBlob(hash)) == true, let file = try? await peer.blobFile(hash),
              let data = try? Data(contentsOf: file.url) else { return nil }
        let range = Int(sample.offset)..<(Int(sample.offset) + sample.bytes.count)
        return data.count >= range.upperBound && [UInt8](data[range]) == sample.bytes ? "in-process peer" : nil
    }
}

@Suite("Sync core: change feed, merge, lazy bytes", .timeLimit(.minutes(3)))
struct SyncCoreTests {
    /// Pulls every change of `from` into `to`, like one `attach sync pull` round.
    static func pull(_ to: AttachmentStore, from: AttachmentStore) async throws {
        var sequence: Int64 = 0
        while true {
            let batch = try await from.changes(since: sequence, limit: 3)
            _ = try await to.apply(batch)
            sequence = batch.nextSequence
            if !batch.hasMore { break }
        }
    }

    @Test("the peers pulled from are those with a pull cursor, in order, on every catalog; a push cursor is not one")
    func knownPeersAreThePullCursors() async throws {
        let fixture = try await StoreFixture("known-peers")
        try await fixture.store.setSyncCursor(5, forPeer: "https://b.example")
        try await fixture.store.setSyncCursor(1, forPeer: "https://a.example")
        try await fixture.store.setPushCursor(3, forPeer: "https://c.example")
        #expect(try await fixture.store.knownPeers() == ["https://a.example", "https://b.example"])
    }

    @Test("records travel, bytes do not: attachments arrive with their blobs remote")
    func recordsWithoutBytes() async throws {
        let (a, b) = (try await StoreFixture("a"), try await StoreFixture("b"))
        #expect(a.store.peerID != b.store.peerID)
        let note = try await a.store.createNote(title: "Trip", body: "coast")
        let first = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"), metadata: ["camera": "X"])
        _ = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Aqua.jpg"))

        try await Self.pull(b.store, from: a.store)
        #expect(try await b.store.note(note.id).title == "Trip")
        let copies = try await b.store.attachments(of: note.id)
        #expect(copies.map(\.availability) == [.remote, .remote])
        #expect(copies.first?.metadata == ["camera": "X"])
        #expect(copies.first?.blobHash == first.blobHash)
        #expect(try await b.store.statistics().remoteBlobs == 2)
        #expect(Files.tree(b.storeURL.appending(path: "blobs")).isEmpty)
        await #expect(throws: AttachmentStore.Error.notAvailableLocally(first.id)) { try await b.store.original(of: first.id) }

        try await Self.pull(b.store, from: a.store)
        #expect(try await b.store.attachments(of: note.id).count == 2, "applying again changes nothing")
    }

    @Test("asking for a remote attachment's thumbnail fetches its bytes, verified, through the configured source")
    func lazyFetchThroughSource() async throws {
        let a = try await StoreFixture("a")
        var configuration = AttachmentStore.Configuration()
        configuration.remoteBlobSource = InProcessPeer(peer: a.store)
        let b = try await StoreFixture("b", configuration: configuration)
        let note = try await a.store.createNote(title: "lazy")
        let photo = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("special/orientation-6.jpg"))
        try await Self.pull(b.store, from: a.store)

        let thumbnail = try await b.store.thumbnail(for: photo.id)
        #expect(thumbnail.height == 200)
        #expect(try await b.store.attachment(photo.id).availability == .local)
        #expect(try await b.store.verify().isClean)
        #expect(try await b.store.original(of: photo.id).data() == (try Data(contentsOf: Corpus.file("special/orientation-6.jpg"))))
    }

    @Test("a cut download resumes from where it stopped; wrong bytes are rejected and nothing is stored")
    func resumeAndVerify() async throws {
        let (a, b) = (try await StoreFixture("a"), try await StoreFixture("b"))
        let note = try await a.store.createNote(title: "resume")
        let photo = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("special/large-16mb.jpg"))
        try await Self.pull(b.store, from: a.store)
        let bytes = try Data(contentsOf: Corpus.file("special/large-16mb.jpg"))

        var tampered = bytes
        tampered[tampered.count / 2] ^= 0xFF
        let bad = try await b.store.blobDownload(for: photo.blobHash, byteCount: photo.byteCount)
        try await bad.append(tampered)
        await #expect(throws: AttachmentStore.Error.self) { try await bad.finish() }
        #expect(try await b.store.attachment(photo.id).availability == .remote)

        let first = try await b.store.blobDownload(for: photo.blobHash, byteCount: photo.byteCount)
        #expect(first.resumeOffset == 0, "the rejected partial was discarded")
        try await first.append(bytes.prefix(6_000_000))
        first.close()
        let second = try await b.store.blobDownload(for: photo.blobHash, byteCount: photo.byteCount)
        #expect(second.resumeOffset == 6_000_000)
        try await second.append(bytes[6_000_000...])
        try await second.finish()
        #expect(try await b.store.attachment(photo.id).availability == .local)
        #expect(try await b.store.verify().isClean)
    }

    @Test("concurrent edits converge to one value on both peers; the later edit wins")
    func lastWriterWins() async throws {
        let (a, b) = (try await StoreFixture("a"), try await StoreFixture("b"))
        let note = try await a.store.createNote(title: "shared")
        try await Self.pull(b.store, from: a.store)
        _ = try await a.store.updateNote(note.id, body: "edited on A")
        try await Task.sleep(for: .milliseconds(5))
        _ = try await b.store.updateNote(note.id, body: "edited on B")
        try await Self.pull(a.store, from: b.store)
        try await Self.pull(b.store, from: a.store)
        #expect(try await a.store.note(note.id).body == "edited on B")
        #expect(try await b.store.note(note.id).body == "edited on B")
    }

    @Test("a note deleted on one peer is deleted on the others with its attachments, also through a relay")
    func deletionsPropagate() async throws {
        let (a, b, c) = (try await StoreFixture("a"), try await StoreFixture("b"), try await StoreFixture("c"))
        let note = try await a.store.createNote(title: "doomed")
        _ = try await a.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"))
        let kept = try await a.store.createNote(title: "kept")
        try await Self.pull(b.store, from: a.store)
        try await Self.pull(c.store, from: b.store)
        #expect(try await c.store.attachments(of: note.id).count == 1, "C learns of A's note through B")

        try await c.store.deleteNote(note.id)
        try await Self.pull(b.store, from: c.store)
        try await Self.pull(a.store, from: b.store)
        for store in [a.store, b.store, c.store] {
            await #expect(throws: AttachmentStore.Error.noteNotFound(note.id.rawValue)) { try await store.note(note.id) }
            #expect(try await store.allAttachments().isEmpty)
            #expect(try await store.note(kept.id).title == "kept")
        }
    }
}
