import AttachmentStore
import Foundation
import Testing

/// A sync change's attachment is the model's own JSON without where the bytes are here: the
/// wire keys stay exactly those peers of earlier releases send and expect, and a received
/// record never claims its bytes are present.
@Suite("Attachment token wire format")
struct AttachmentTokenWireTests {
    static let attachment = Attachment(
        id: AttachmentID(rawValue: "a-1"), noteID: NoteID(rawValue: "n-1"), position: 2,
        blobHash: BlobHash(rawValue: String(repeating: "cd", count: 32))!, byteCount: 4_096,
        mediaType: "image/jpeg", filename: "beach.jpg", image: .init(width: 4_000, height: 3_000, orientation: 6),
        metadata: ["camera": "X100"], createdAt: Date(timeIntervalSince1970: 1_700_000_000.123),
        updatedAt: Date(timeIntervalSince1970: 1_700_000_100.456), state: .present, fetchedBytes: nil
    )
    static let clock = ClockStamp(rawValue: "1700000100456-000003-peer")

    static func wireObject(_ change: SyncChange) throws -> [String: Any] {
        let data = try SyncBatch(peerID: "p", changes: [change], nextSequence: 1, hasMore: false).jsonData()
        let batch = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let changes = try #require(batch["changes"] as? [[String: Any]])
        return try #require(changes.first?["attachment"] as? [String: Any])
    }

    @Test("the token carries exactly the attachment's descriptive fields and the clock, nothing about local bytes")
    func wireKeys() throws {
        let object = try Self.wireObject(.attachment(.init(Self.attachment, clock: Self.clock)))
        #expect(Set(object.keys) == [
            "id", "noteID", "position", "blobHash", "byteCount", "mediaType", "filename", "image", "metadata",
            "createdAt", "updatedAt", "clock",
        ])
        #expect(object["blobHash"] as? String == String(repeating: "cd", count: 32))
        #expect(object["clock"] as? String == Self.clock.rawValue)
        #expect((object["image"] as? [String: Any])?["orientation"] as? Int == 6)
    }

    @Test("an attachment that is not an image sends no image key at all")
    func noImageKey() throws {
        var file = Self.attachment
        file.image = nil
        file.mediaType = "application/pdf"
        let object = try Self.wireObject(.attachment(.init(file, clock: Self.clock)))
        #expect(object["image"] == nil)
    }

    @Test("a token read back is the same attachment, marked remote, with the same clock")
    func roundTrip() throws {
        let data = try SyncBatch(peerID: "p", changes: [.attachment(.init(Self.attachment, clock: Self.clock))], nextSequence: 1, hasMore: false).jsonData()
        let batch = try SyncBatch(jsonData: data)
        guard case .attachment(let token) = try #require(batch.changes.first) else {
            Issue.record("not an attachment change")
            return
        }
        var expected = Self.attachment
        expected.state = .remote
        #expect(token.attachment == expected)
        #expect(token.clock == Self.clock)
    }

    @Test("a peer that claims its record is present or half-fetched is read as remote, without progress")
    func claimedStateIsIgnored() throws {
        let json = """
        {"peerID":"p","nextSequence":1,"hasMore":false,"changes":[{"kind":"attachment","attachment":{
        "id":"a-1","noteID":"n-1","position":0,"blobHash":"\(String(repeating: "ab", count: 32))","byteCount":10,
        "mediaType":"image/png","filename":"x.png","metadata":{},"createdAt":1700000000000,"updatedAt":1700000000000,
        "clock":"1700000000000-000000-p","state":"present","fetchedBytes":5}}]}
        """
        let batch = try SyncBatch(jsonData: Data(json.utf8))
        guard case .attachment(let token) = try #require(batch.changes.first) else {
            Issue.record("not an attachment change")
            return
        }
        #expect(token.attachment.state == .remote)
        #expect(token.attachment.fetchedBytes == nil)
    }

    @Test("a token without a clock is unreadable, and the rest of the batch is still read")
    func missingClock() throws {
        let json = """
        {"peerID":"p","nextSequence":1,"hasMore":false,"changes":[{"kind":"attachment","attachment":{
        "id":"a-1","noteID":"n-1","position":0,"blobHash":"\(String(repeating: "ab", count: 32))","byteCount":10,
        "mediaType":"image/png","filename":"x.png","metadata":{},"createdAt":1700000000000,"updatedAt":1700000000000}},
        {"kind":"tombstone","tombstone":{"entity":"note","id":"n-9","clock":"1700000000000-000001-p"}}]}
        """
        let batch = try SyncBatch(jsonData: Data(json.utf8))
        #expect(batch.changes.count == 1)
        #expect(batch.unreadable.count == 1)
    }

    @Test("the model's own JSON (attach --json) keeps where the bytes are")
    func modelKeepsState() throws {
        var fetching = Self.attachment
        fetching.state = .fetching
        fetching.fetchedBytes = 1_024
        let data = try JSONEncoder().encode(fetching)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["state"] as? String == "fetching")
        #expect(object["fetchedBytes"] as? Int == 1_024)
        #expect(try JSONDecoder().decode(Attachment.self, from: data) == fetching)
    }

    @Test("a note change is the note's own JSON plus its clock, and reads back the same")
    func noteChange() throws {
        let note = Note(id: NoteID(rawValue: "n-1"), title: "Trip", body: "coast", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                        updatedAt: Date(timeIntervalSince1970: 1_700_000_001))
        let data = try SyncBatch(peerID: "p", changes: [.note(.init(note, clock: Self.clock))], nextSequence: 1, hasMore: false).jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let change = try #require((object["changes"] as? [[String: Any]])?.first?["note"] as? [String: Any])
        #expect(Set(change.keys) == ["id", "title", "body", "createdAt", "updatedAt", "clock"])
        guard case .note(let state) = try #require(try SyncBatch(jsonData: data).changes.first) else {
            Issue.record("not a note change")
            return
        }
        #expect(state.note == note && state.clock == Self.clock)
    }
}
