@testable import AttachmentStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// The lock handover of resumable uploads: a request whose bytes stopped arriving (its client's
/// link died without closing) is stopped by the next request for the same upload, keeps what it
/// received, and lets the next one continue at once; a live writer is left alone.
@Suite("Resumable uploads: a silent writer hands its lock over, a live one keeps it", .timeLimit(.minutes(3)))
struct UploadHandoverTests {
    typealias Pieces = ResumableUploadTests.Pieces

    struct LinkDied: Error {}

    /// How often a request was asked to stop.
    final class Interruptions: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A request body the test feeds by hand: what was yielded, then silence until `interrupt`
    /// ends it as a dropped connection would.
    struct SilentBody {
        let bytes: AsyncThrowingStream<Data, any Error>
        let feed: AsyncThrowingStream<Data, any Error>.Continuation

        init(sending data: Data) {
            (bytes, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
            var offset = 0
            while offset < data.count {
                let end = min(offset + 64 << 10, data.count)
                feed.yield(data.subdata(in: data.startIndex + offset..<data.startIndex + end))
                offset = end
            }
        }

        /// What the server does to the request when asked to stop: closes its connection.
        var interrupt: @Sendable () -> Void {
            { [feed] in feed.finish(throwing: LinkDied()) }
        }
    }

    /// A store with a note and an upload of the corpus photo whose first `sent` bytes a request
    /// received before its link went silent; that request, still holding the upload.
    static func silentUpload(_ fixture: StoreFixture, sent: Int) async throws -> (photo: Data, upload: ResumableUpload, silent: Task<ResumableUpload, any Error>) {
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try ResumableUploadTests.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        let body = SilentBody(sending: photo.prefix(sent))
        let silent = Task { try await store.appendToUpload(upload.id, at: 0, bytes: body.bytes, interrupt: body.interrupt) }
        try await ResumableUploadTests.waitUntilWriterHolds(upload.id, in: store)
        return (photo, upload, silent)
    }

    @Test("asking where an upload stands stops a writer whose bytes stopped arriving; the answer counts every byte it received")
    func askingStopsASilentWriter() async throws {
        let fixture = try await StoreFixture()
        let sent = 300_000  // less than a write's worth: the silent request still holds it in memory
        let (photo, upload, silent) = try await Self.silentUpload(fixture, sent: sent)
        let settled = try await fixture.store.settledUpload(upload.id)
        #expect(settled.offset == Int64(sent))
        await #expect(throws: LinkDied.self) { try await silent.value }
        let done = try await fixture.store.appendToUpload(upload.id, at: Int64(sent), bytes: Pieces(data: photo.suffix(from: sent)))
        #expect(try await fixture.store.original(of: try #require(done.attachment)).data() == photo)
        #expect(try await fixture.store.verify().isClean)
    }

    @Test("the next request's bytes take over a silent writer's upload and finish it")
    func nextRequestTakesOver() async throws {
        let fixture = try await StoreFixture()
        let sent = 900_000
        let (photo, upload, silent) = try await Self.silentUpload(fixture, sent: sent)
        // The client resumes at once with the offset it believes in; the store holds exactly that.
        let done = try await fixture.store.appendToUpload(upload.id, at: Int64(sent), bytes: Pieces(data: photo.suffix(from: sent)))
        await #expect(throws: LinkDied.self) { try await silent.value }
        #expect(try await fixture.store.original(of: try #require(done.attachment)).data() == photo)
        #expect(try await fixture.store.attachments(of: try await fixture.store.resumableUpload(upload.id).note).count == 1)
    }

    @Test("cancelling an upload a silent writer holds stops the writer and removes the upload")
    func cancelStopsASilentWriter() async throws {
        let fixture = try await StoreFixture()
        let (_, upload, silent) = try await Self.silentUpload(fixture, sent: 200_000)
        try await fixture.store.cancelUpload(upload.id)
        await #expect(throws: LinkDied.self) { try await silent.value }
        await #expect(throws: AttachmentStore.Error.upload(.notFound(upload.id))) { try await fixture.store.resumableUpload(upload.id) }
        #expect(try await fixture.store.verify().isClean)
    }

    @Test("a writer whose bytes keep arriving is not stopped: a second writer is told the upload is busy")
    func liveWriterKeepsItsLock() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "n")
        let photo = try ResumableUploadTests.photo()
        let upload = try await store.createUpload(for: note.id, filename: "a.jpg", length: Int64(photo.count))
        // A slow but live client: a small piece every 50 ms, for longer than anyone waits.
        let interrupted = Interruptions()
        let live = Task {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo, chunk: 4096, pause: .milliseconds(50)),
                                           interrupt: { interrupted.count.add(1, ordering: .relaxed) })
        }
        try await ResumableUploadTests.waitUntilWriterHolds(upload.id, in: store)
        await #expect(throws: AttachmentStore.Error.upload(.busy(upload.id))) {
            try await store.appendToUpload(upload.id, at: 0, bytes: Pieces(data: photo))
        }
        #expect(interrupted.count.load(ordering: .relaxed) == 0)
        live.cancel()
        _ = try? await live.value
    }
}
