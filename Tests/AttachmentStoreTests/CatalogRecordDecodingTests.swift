@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// How the catalog's record types read their rows and become the public values: defaults for
/// columns older catalogs leave empty (clock, metadata, orientation), the blob state a row
/// may hold, what makes an attachment an image, and the errors a damaged row gives. Rows are
/// built by hand, as either database would answer them.
@Suite("Catalog record decoding")
struct CatalogRecordDecodingTests {
    static let hash = String(repeating: "ab", count: 32)
    static let created = "2026-09-21 14:13:20.123"
    static let updated = "2026-09-22 08:00:00.000"

    static func attachmentRow(_ overrides: [String: SQLValue] = [:]) -> SQLRow {
        var fields: [(String, SQLValue)] = [
            ("id", "a-1"), ("noteId", "n-1"), ("position", 2), ("blobHash", .text(hash)), ("mediaType", "image/jpeg"),
            ("filename", "IMG_0001.JPG"), ("width", 4000), ("height", 3000), ("orientation", 6),
            ("metadata", "{\"camera\":\"X100\"}"), ("createdAt", .text(created)), ("updatedAt", .text(updated)),
            ("clock", "1790000000123-000000-peer"), ("blobByteCount", 123_456), ("blobState", "present"),
        ]
        for (key, value) in overrides {
            if let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = value } else { fields.append((key, value)) }
        }
        return SQLRow(columns: fields.map(\.0), values: fields.map(\.1))
    }

    @Test("a note row becomes the note it holds, its dates to the millisecond")
    func noteRow() throws {
        let row = SQLRow(columns: ["id", "title", "body", "createdAt", "updatedAt", "clock"],
                         values: ["n-1", "Trip", "Day one", .text(Self.created), .text(Self.updated), "c"])
        let record = try NoteRecord(row: row)
        #expect(record.clock == "c")
        let note = record.note
        #expect(note.id == NoteID(rawValue: "n-1") && note.title == "Trip" && note.body == "Day one")
        #expect(abs(note.createdAt.timeIntervalSince1970 - 1_790_000_000.123) < 0.0005)
        #expect(note.updatedAt.timeIntervalSince1970 == 1_790_064_000)
    }

    @Test("a note row of a catalog older than sync, without a clock, reads with an empty clock")
    func noteRowWithoutClock() throws {
        let row = SQLRow(columns: ["id", "title", "body", "createdAt", "updatedAt"],
                         values: ["n-1", "", "", .text(Self.created), .text(Self.updated)])
        #expect(try NoteRecord(row: row).clock == "")
        let nullClock = SQLRow(columns: ["id", "title", "body", "createdAt", "updatedAt", "clock"],
                               values: ["n-1", "", "", .text(Self.created), .text(Self.updated), .null])
        #expect(try NoteRecord(row: nullClock).clock == "")
    }

    @Test("a note row missing a required field names that column", arguments: ["id", "title", "body", "createdAt", "updatedAt"])
    func noteRowMissingField(column: String) {
        var columns = ["id", "title", "body", "createdAt", "updatedAt"]
        var values: [SQLValue] = ["n-1", "t", "b", .text(Self.created), .text(Self.updated)]
        let index = columns.firstIndex(of: column)!
        columns.remove(at: index)
        values.remove(at: index)
        #expect(throws: SQLDecodingError(column: column, reason: "is NULL")) { try NoteRecord(row: SQLRow(columns: columns, values: values)) }
    }

    @Test("a note made into a record keeps every field and starts with an empty clock")
    func noteToRecord() {
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let note = Note(id: NoteID(rawValue: "n-2"), title: "T", body: "B", createdAt: date, updatedAt: date.addingTimeInterval(5))
        let record = NoteRecord(note)
        #expect(record.note == note)
        #expect(record.clock.isEmpty)
    }

    @Test("an attachment row joined with its blob becomes the attachment, with its image facts and metadata")
    func attachmentRow() throws {
        let attachment = try AttachmentRow(row: Self.attachmentRow()).value
        #expect(attachment.id == AttachmentID(rawValue: "a-1") && attachment.noteID == NoteID(rawValue: "n-1"))
        #expect(attachment.position == 2 && attachment.byteCount == 123_456)
        #expect(attachment.blobHash.rawValue == Self.hash)
        #expect(attachment.image == StoredAttachment.ImageInfo(width: 4000, height: 3000, orientation: 6))
        #expect(attachment.metadata == ["camera": "X100"])
        #expect(attachment.state == .present && attachment.availability == .local)
        #expect(attachment.fetchedBytes == nil)
    }

    @Test("without a width or a height an attachment is no image; without an orientation it is upright", arguments: [
        (["width": SQLValue.null], nil as StoredAttachment.ImageInfo?), (["height": .null], nil),
        (["orientation": .null], StoredAttachment.ImageInfo(width: 4000, height: 3000, orientation: 1)),
        (["width": .null, "height": .null, "orientation": .null], nil),
    ] as [([String: SQLValue], StoredAttachment.ImageInfo?)])
    func imageFacts(overrides: [String: SQLValue], expected: StoredAttachment.ImageInfo?) throws {
        #expect(try AttachmentRow(row: Self.attachmentRow(overrides)).value.image == expected)
    }

    @Test("each blob state becomes the same attachment state; an unknown one is taken as remote", arguments: [
        ("present", StoredAttachment.State.present), ("remote", .remote), ("evicted", .evicted), ("damaged", .damaged),
        ("fetching", .remote), ("PRESENT", .remote), ("", .remote),
    ])
    func blobStates(raw: String, state: StoredAttachment.State) throws {
        let attachment = try AttachmentRow(row: Self.attachmentRow(["blobState": .text(raw)])).value
        #expect(attachment.state == state)
        #expect(attachment.availability == (state == .present ? .local : .remote))
    }

    @Test("metadata that is NULL reads as none; metadata that is not a JSON object of strings is an error naming the column",
          arguments: [
              (SQLValue.null, true), (.text("{}"), true), (.text("[]"), false), (.text("{\"n\":1}"), false),
              (.text("not json"), false), (.text(""), false),
          ] as [(SQLValue, Bool)])
    func metadataColumn(value: SQLValue, readable: Bool) throws {
        let row = Self.attachmentRow(["metadata": value])
        if readable {
            #expect(try AttachmentRecord(row: row).metadata.isEmpty)
        } else {
            let error = try #require(throws: SQLDecodingError.self) { try AttachmentRecord(row: row) }
            #expect(error.column == "metadata")
            #expect(error.reason.contains("not a JSON object of strings"))
        }
    }

    @Test("a damaged metadata value is quoted in the error cut to 40 characters")
    func longMetadataIsCut() throws {
        let long = "[" + String(repeating: "x", count: 100)
        let error = try #require(throws: SQLDecodingError.self) { try AttachmentRecord(row: Self.attachmentRow(["metadata": .text(long)])) }
        #expect(error.reason == "holds \(long.prefix(40)), not a JSON object of strings")
    }

    @Test("a position stored as text or a whole real still reads as a position")
    func positionStorageClasses() throws {
        #expect(try AttachmentRecord(row: Self.attachmentRow(["position": "7"])).position == 7)
        #expect(try AttachmentRecord(row: Self.attachmentRow(["position": .real(3)])).position == 3)
        #expect(throws: SQLDecodingError(column: "position", reason: "holds \"first\", not an integer")) {
            try AttachmentRecord(row: Self.attachmentRow(["position": "first"]))
        }
    }

    @Test("an attachment row without its blob's size is refused, naming the joined column")
    func missingBlobSize() {
        #expect(throws: SQLDecodingError(column: "blobByteCount", reason: "is NULL")) {
            try AttachmentRow(row: Self.attachmentRow(["blobByteCount": .null]))
        }
    }

    @Test("a blob row reads its state, an unknown state as remote, and an unchecked blob has no check date")
    func blobRow() throws {
        func row(state: String, checkedAt: SQLValue) -> SQLRow {
            SQLRow(columns: ["hash", "byteCount", "state", "createdAt", "checkedAt"],
                   values: [.text(Self.hash), 10, .text(state), .text(Self.created), checkedAt])
        }
        let checked = try BlobRecord(row: row(state: "damaged", checkedAt: .text(Self.updated)))
        #expect(checked.state == .damaged && checked.byteCount == 10)
        #expect(checked.checkedAt == Date(timeIntervalSince1970: 1_790_064_000))
        let unknown = try BlobRecord(row: row(state: "lost", checkedAt: .null))
        #expect(unknown.state == .remote && unknown.checkedAt == nil)
    }

    @Test("an image-store entry row reads its key, blob, type and date")
    func imageEntryRow() throws {
        let row = SQLRow(columns: ["key", "blobHash", "mediaType", "updatedAt"],
                         values: ["avatars/42", .text(Self.hash), "image/png", .text(Self.updated)])
        let entry = try ImageEntryRecord(row: row)
        #expect(entry.key == "avatars/42" && entry.blobHash == Self.hash && entry.mediaType == "image/png")
        #expect(entry.updatedAt == Date(timeIntervalSince1970: 1_790_064_000))
        #expect(throws: SQLDecodingError(column: "key", reason: "is NULL")) {
            try ImageEntryRecord(row: SQLRow(columns: ["blobHash", "mediaType", "updatedAt"], values: [.text(Self.hash), "image/png", .text(Self.updated)]))
        }
    }
}
