@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The change feed's wire form: how each ``SyncChange`` is tagged by kind, how a ``SyncBatch``
/// is written (sorted keys, dates in milliseconds) and read back, how a batch keeps the
/// entries it can read and says why it cannot read the others, and how
/// ``SyncApplyReport``s add up with a bounded list of reasons. No store or server.
@Suite("Sync change coding")
struct SyncChangeCodingTests {
    static let hash = BlobHash(rawValue: String(repeating: "0f", count: 32))!
    static let date = Date(timeIntervalSince1970: 1_790_000_000.125)
    static let clock = ClockStamp(milliseconds: 1_790_000_000_123, counter: 1, peer: "peer-a")

    static let note = SyncChange.note(.init(Note(id: NoteID(rawValue: "3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6"), title: "Trip", body: "Day one\n",
                                                 createdAt: date, updatedAt: date), clock: clock))
    static let attachment = SyncChange.attachment(.init(StoredAttachment(
        id: AttachmentID(rawValue: "0c4f6e0a-1b2c-4d5e-8f90-a1b2c3d4e5f6"), noteID: NoteID(rawValue: "3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6"),
        position: 0, blobHash: hash, byteCount: 1234, mediaType: "image/jpeg", filename: "IMG_1.JPG",
        image: StoredAttachment.ImageInfo(width: 40, height: 30, orientation: 1), metadata: ["camera": "X100"],
        createdAt: date, updatedAt: date, state: .remote), clock: clock))
    static let tombstone = SyncChange.tombstone(.init(entity: "note", id: "3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6", clock: clock))

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("each change is written as its kind and one field of that name", arguments: [
        (note, "note"), (attachment, "attachment"), (tombstone, "tombstone"),
    ])
    func taggedByKind(change: SyncChange, kind: String) throws {
        let object = try Self.object(JSONEncoder().encode(change))
        #expect(object["kind"] as? String == kind)
        #expect(Set(object.keys) == ["kind", kind])
        #expect(try JSONDecoder().decode(SyncChange.self, from: JSONEncoder().encode(change)) == change)
    }

    @Test("a change of an unknown kind, or a kind without its field, does not decode")
    func unknownKind() {
        for json in [#"{"kind":"user","user":{}}"#, #"{"kind":"note"}"#, #"{"note":{}}"#, #"{"kind":7}"#] {
            #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(SyncChange.self, from: Data(json.utf8)) }
        }
    }

    @Test("a batch is written with sorted keys and dates as whole milliseconds since 1970, and reads back equal")
    func batchWireForm() throws {
        let batch = SyncBatch(peerID: "peer-a", changes: [Self.note, Self.attachment, Self.tombstone], nextSequence: 42, hasMore: true)
        let data = try batch.jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"changes":["#), "keys sorted: changes, hasMore, nextSequence, peerID")
        #expect(text.hasSuffix(#""hasMore":true,"nextSequence":42,"peerID":"peer-a"}"#))
        #expect(text.contains(#""createdAt":1790000000125"#))
        #expect(!text.contains("unreadable"), "the reasons a batch could not be read are never sent")
        let read = try SyncBatch(jsonData: data)
        #expect(read == batch)
        #expect(read.unreadable.isEmpty)
    }

    @Test("an unreadable entry is left out with a line saying where and why; the entries around it are kept")
    func lenientBatch() throws {
        let good = try Self.object(JSONEncoder.milliseconds.encode(Self.attachment))
        var badHash = good
        var token = try #require(badHash["attachment"] as? [String: Any])
        token["blobHash"] = "not-a-hash"
        badHash["attachment"] = token
        var missingField = good
        token.removeValue(forKey: "byteCount")
        token["blobHash"] = Self.hash.rawValue
        missingField["attachment"] = token
        let unknownKind: [String: Any] = ["kind": "user", "user": [:] as [String: Any]]
        let batch: [String: Any] = ["peerID": "p", "nextSequence": 9, "hasMore": false,
                                    "changes": [good, badHash, unknownKind, missingField, good]]
        let read = try SyncBatch(jsonData: JSONSerialization.data(withJSONObject: batch))
        #expect(read.changes == [Self.attachment, Self.attachment])
        #expect(read.unreadable.count == 3)
        #expect(read.unreadable.allSatisfy { $0.hasPrefix("unreadable change ") })
        #expect(read.unreadable[0].contains("[1].attachment.blobHash"), "\(read.unreadable[0])")
        #expect(read.unreadable[1].contains("[2].kind") && read.unreadable[1].contains("unknown change kind user"), "\(read.unreadable[1])")
        #expect(read.unreadable[2].contains("[3].attachment.byteCount: missing"), "\(read.unreadable[2])")
        #expect(read.nextSequence == 9 && !read.hasMore)
    }

    @Test("a batch whose own fields are missing or mistyped is refused whole", arguments: [
        #"{"changes":[],"nextSequence":1,"hasMore":false}"#, #"{"peerID":"p","changes":[],"hasMore":false}"#,
        #"{"peerID":"p","changes":{},"nextSequence":1,"hasMore":false}"#, #"{"peerID":"p","changes":[],"nextSequence":"1","hasMore":false}"#,
        "[]", "",
    ])
    func malformedBatch(json: String) {
        #expect(throws: (any Error).self) { try SyncBatch(jsonData: Data(json.utf8)) }
    }

    @Test("an unreadable entry's reason is cut short, so a hostile peer cannot fill the log")
    func reasonIsBounded() throws {
        let kind = String(repeating: "k", count: 5000)
        let json = #"{"peerID":"p","nextSequence":1,"hasMore":false,"changes":[{"kind":"\#(kind)"}]}"#
        let read = try SyncBatch(jsonData: Data(json.utf8))
        let reason = try #require(read.unreadable.first)
        #expect(reason.utf8.count < 200, "\(reason.utf8.count) bytes")
    }

    @Test("refused changes are all counted, but only the first 20 reasons kept")
    func refuseKeepsTwentyReasons() {
        var report = SyncApplyReport()
        for index in 0..<25 { report.refuse("problem \(index)") }
        #expect(report.invalid == 25)
        #expect(report.problems == (0..<20).map { "problem \($0)" })
    }

    @Test("adding reports sums every count and keeps reasons, earliest first, up to 20")
    func addReports() {
        var first = SyncApplyReport()
        first.notesApplied = 1; first.attachmentsApplied = 2; first.deletionsApplied = 3; first.ignored = 4; first.newRemoteBlobs = 5
        for index in 0..<15 { first.refuse("a\(index)") }
        var second = SyncApplyReport()
        second.notesApplied = 10; second.attachmentsApplied = 20; second.deletionsApplied = 30; second.ignored = 40; second.newRemoteBlobs = 50
        for index in 0..<10 { second.refuse("b\(index)") }
        first.add(second)
        #expect(first.notesApplied == 11 && first.attachmentsApplied == 22 && first.deletionsApplied == 33)
        #expect(first.ignored == 44 && first.newRemoteBlobs == 55 && first.invalid == 25)
        #expect(first.problems == (0..<15).map { "a\($0)" } + (0..<5).map { "b\($0)" })
        var full = first
        full.add(second)
        #expect(full.problems == first.problems, "a full list takes no more")
        #expect(full.invalid == 35)
    }

    @Test("an empty report adds nothing")
    func addEmpty() {
        var report = SyncApplyReport()
        report.notesApplied = 3
        report.refuse("x")
        let before = report
        report.add(SyncApplyReport())
        #expect(report == before)
    }
}

extension JSONEncoder {
    /// The wire form's encoder: dates in milliseconds since 1970.
    fileprivate static var milliseconds: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }
}
