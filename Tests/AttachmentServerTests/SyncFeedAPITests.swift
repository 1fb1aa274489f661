@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /sync/changes` and `GET /sync/status`: what a peer reads before any byte moves.
@Suite("Sync feed API", .timeLimit(.minutes(2)))
struct SyncFeedAPITests {
    /// A store whose feed holds, in order: a note, its attachment, and the tombstone of a deleted note.
    static func seeded(_ fixture: ServerFixture) async throws -> (note: Note, attachment: StoredAttachment, deleted: NoteID) {
        let store = try await fixture.store()
        let doomed = try await store.createNote(title: "doomed")
        let note = try await store.createNote(title: "Trip", body: "coast")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        try await store.deleteNote(doomed.id)
        return (note, attachment, doomed.id)
    }

    /// Gives `store` the record of an attachment whose bytes stay on another, short-lived store;
    /// returns the hash of those bytes.
    static func addRemoteRecord(to store: AttachmentStore) async throws -> BlobHash {
        let elsewhere = try TemporaryDirectory("elsewhere")
        let other = try await AttachmentStore.create(at: elsewhere.appending("store"))
        let note = try await other.createNote(title: "elsewhere")
        let attachment = try await other.addAttachment(to: note.id, fromFile: try Corpus.file("good/Aqua.jpg"))
        _ = try await store.apply(try await other.changes(since: 0))
        withExtendedLifetime(elsewhere) {}
        return attachment.blobHash
    }

    @Test("the change feed answers notes, attachment tokens and tombstones in order of their last change")
    func changesInOrder() async throws {
        let fixture = try ServerFixture()
        let (note, attachment, deleted) = try await Self.seeded(fixture)
        let peerID = try await fixture.store().peerID
        try await fixture.test { client in
            let response = try await client.execute(uri: "/sync/changes?since=0", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.cacheControl] == "no-store")
            let batch = try SyncBatch(jsonData: Data(buffer: response.body))
            #expect(batch.peerID == peerID)
            #expect(!batch.hasMore)
            try #require(batch.changes.count == 3)
            guard case .note(let state) = batch.changes[0] else { Issue.record("first: \(batch.changes[0])"); return }
            #expect(state.note.id == note.id && state.note.title == "Trip" && state.note.body == "coast")
            guard case .attachment(let token) = batch.changes[1] else { Issue.record("second: \(batch.changes[1])"); return }
            #expect(token.attachment.id == attachment.id && token.attachment.noteID == note.id)
            #expect(token.attachment.blobHash == attachment.blobHash && token.attachment.byteCount == attachment.byteCount)
            guard case .tombstone(let tombstone) = batch.changes[2] else { Issue.record("third: \(batch.changes[2])"); return }
            #expect(tombstone.entity == "note" && tombstone.id == deleted.rawValue)

            let empty = try SyncBatch(jsonData: Data(buffer: try await client.execute(
                uri: "/sync/changes?since=\(batch.nextSequence)", method: .get).body))
            #expect(empty.changes.isEmpty && !empty.hasMore && empty.nextSequence == batch.nextSequence)
        }
    }

    @Test("limit pages the feed and nextSequence continues it where the page stopped")
    func limitPagesTheFeed() async throws {
        let fixture = try ServerFixture()
        _ = try await Self.seeded(fixture)
        try await fixture.test { client in
            let first = try SyncBatch(jsonData: Data(buffer: try await client.execute(uri: "/sync/changes?since=0&limit=2", method: .get).body))
            #expect(first.changes.count == 2 && first.hasMore)
            let rest = try SyncBatch(jsonData: Data(buffer: try await client.execute(
                uri: "/sync/changes?since=\(first.nextSequence)&limit=2", method: .get).body))
            #expect(rest.changes.count == 1 && !rest.hasMore)
            guard case .tombstone = rest.changes.first else { Issue.record("\(rest.changes)"); return }
            let whole = try SyncBatch(jsonData: Data(buffer: try await client.execute(uri: "/sync/changes", method: .get).body))
            #expect(whole.changes == first.changes + rest.changes, "since defaults to 0")
        }
    }

    @Test("a since, limit or wait that is not an integer in range is a 400 naming the parameter",
          arguments: [("since=-1", "bad_since"), ("since=abc", "bad_since"), ("since=", "bad_since"),
                      ("limit=0", "bad_limit"), ("limit=10001", "bad_limit"), ("since=0&limit=ten", "bad_limit"),
                      ("wait=56", "bad_wait"), ("wait=-1", "bad_wait"), ("wait=soon", "bad_wait"), ("wait=1.5", "bad_wait")])
    func badQueryIsRejected(query: String, code: String) async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/sync/changes?\(query)", method: .get)
            #expect(response.status == .badRequest)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(JSON.errorCode(response) == code)
        }
    }

    @Test("with wait the request is held until there is a change, then answers it at once")
    func waitHoldsUntilAChange() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let position = try await store.changeFeedPosition()
        try await fixture.test { client in
            let held = Task {
                let start = ContinuousClock.now
                let response = try await client.execute(uri: "/sync/changes?since=\(position)&wait=30", method: .get)
                return (ContinuousClock.now - start, try SyncBatch(jsonData: Data(buffer: response.body)))
            }
            try await Task.sleep(for: .milliseconds(500))
            let note = try await store.createNote(title: "made while a peer waited")
            let (took, batch) = try await held.value
            #expect(took >= .milliseconds(400), "held, not answered empty at once")
            #expect(took < .seconds(15), "answered when the note was made, not at the end of the wait")
            #expect(batch.changes.count == 1)
            guard case .note(let state) = batch.changes.first else { Issue.record("\(batch.changes)"); return }
            #expect(state.note.id == note.id)
        }
    }

    @Test("with wait and nothing new the answer is an empty batch when the wait is over; with news it is immediate")
    func waitEndsEmptyOrImmediately() async throws {
        let fixture = try ServerFixture()
        _ = try await Self.seeded(fixture)
        try await fixture.test { client in
            var start = ContinuousClock.now
            let whole = try SyncBatch(jsonData: Data(buffer: try await client.execute(uri: "/sync/changes?since=0&wait=30", method: .get).body))
            #expect(whole.changes.count == 3)
            #expect(ContinuousClock.now - start < .seconds(15), "changes after since: answered at once")
            start = ContinuousClock.now
            let empty = try SyncBatch(jsonData: Data(buffer: try await client.execute(
                uri: "/sync/changes?since=\(whole.nextSequence)&wait=1", method: .get).body))
            #expect(ContinuousClock.now - start >= .milliseconds(900))
            #expect(empty.changes.isEmpty && !empty.hasMore && empty.nextSequence == whole.nextSequence)
        }
    }

    @Test("status reports the peer id, the blob bytes served and the blobs still on peers")
    func statusReportsCounters() async throws {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        _ = try await Self.addRemoteRecord(to: store)
        let note = try await store.createNote(title: "here")
        let local = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        try await fixture.test { client in
            let before = try JSON.decode(SyncRoutes.Status.self, try await client.execute(uri: "/sync/status", method: .get))
            #expect(before.peerID == store.peerID)
            #expect(before.blobBytesServed == 0 && before.blobBytesReceived == 0)
            #expect(before.remoteBlobs == 1)

            let blob = try await client.execute(uri: "/blobs/sha256/\(local.blobHash.rawValue)", method: .get)
            #expect(blob.status == .ok)
            _ = try await client.execute(uri: "/blobs/sha256/\(local.blobHash.rawValue)", method: .head)
            let after = try JSON.decode(SyncRoutes.Status.self, try await client.execute(uri: "/sync/status", method: .get))
            #expect(after.blobBytesServed == local.byteCount, "a HEAD serves no bytes")
        }
    }
}
