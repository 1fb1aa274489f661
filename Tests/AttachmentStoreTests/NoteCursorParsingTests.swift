@testable import AttachmentStore
import Foundation
import Testing

/// ``NoteCursor``'s text form, which arrives in URLs: exactly what it accepts, what it
/// refuses, how a note's date becomes whole milliseconds, and that what it writes reads back.
/// (That paging by cursor gives the offset listing is ``NoteLifecycleTests``' business.)
@Suite("Note cursor parsing")
struct NoteCursorParsingTests {
    static let id = "3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6"

    @Test("a cursor of 1 to 15 digits and a lowercase UUID reads back its fields", arguments: [
        ("0_" + id, Int64(0)), ("1790000000123_" + id, 1_790_000_000_123), ("999999999999999_" + id, 999_999_999_999_999),
        ("000000000000042_" + id, 42),
    ] as [(String, Int64)])
    func accepted(text: String, milliseconds: Int64) throws {
        let cursor = try #require(NoteCursor(text))
        #expect(cursor.updatedAtMilliseconds == milliseconds)
        #expect(cursor.id == NoteID(rawValue: Self.id))
        #expect(cursor.updatedAt == Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }

    @Test("anything else is no cursor", arguments: [
        "", "_", "1790000000123", "1790000000123_", "_" + id, "1790000000123-" + id,
        "1234567890123456_" + id,  // 16 digits
        "-1_" + id, "+1_" + id, " 1_" + id, "1 _" + id, "1.5_" + id, "0x1f_" + id, "١٢٣_" + id,
        "1_" + id.uppercased(), "1_" + id.replacingOccurrences(of: "-", with: ""), "1_" + id + "0", "1_" + String(id.dropLast()),
        "1_" + id.replacingOccurrences(of: "-", with: "_"), "1_3f2a0c4e1-b2c-4d5e-8f90-a1b2c3d4e5f6", "1_" + String(id.dropLast()) + "g",
        "1_" + id + "_2", "1__" + id, "1_" + String(id.dropLast()) + "é",
    ])
    func refused(text: String) {
        #expect(NoteCursor(text) == nil, "\(text)")
    }

    @Test("the cursor after a note rounds its date to the nearest millisecond, the catalog's precision", arguments: [
        (1_790_000_000.1234, Int64(1_790_000_000_123)), (1_790_000_000.1236, 1_790_000_000_124), (0, 0), (1.25, 1250), (0.0004, 0),
    ])
    func afterNote(seconds: TimeInterval, milliseconds: Int64) {
        let date = Date(timeIntervalSince1970: seconds)
        let note = Note(id: NoteID(rawValue: Self.id), title: "t", body: "", createdAt: date, updatedAt: date)
        let cursor = NoteCursor(after: note)
        #expect(cursor.updatedAtMilliseconds == milliseconds)
        #expect(cursor.id.rawValue == Self.id)
        #expect(cursor.description == "\(milliseconds)_\(Self.id)")
    }

    @Test("a cursor ignores the note's creation date, title and body")
    func onlyUpdateAndID() {
        let updated = Date(timeIntervalSince1970: 1_790_000_000)
        let a = Note(id: NoteID(rawValue: Self.id), title: "a", body: "x", createdAt: Date(timeIntervalSince1970: 1), updatedAt: updated)
        let b = Note(id: NoteID(rawValue: Self.id), title: "b", body: "y", createdAt: updated, updatedAt: updated)
        #expect(NoteCursor(after: a) == NoteCursor(after: b))
        #expect(Set([NoteCursor(after: a), NoteCursor(after: b)]).count == 1)
    }

    @Test("what a cursor writes reads back as the same cursor, with no leading zeros", arguments: [Int64(0), 7, 1_790_000_000_123])
    func roundTrip(milliseconds: Int64) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
        let cursor = NoteCursor(after: Note(id: NoteID(rawValue: Self.id), title: "", body: "", createdAt: date, updatedAt: date))
        #expect(try #require(NoteCursor(cursor.description)) == cursor)
        #expect(cursor.description.hasPrefix("\(milliseconds)_"))
        #expect(cursor.description.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) == cursor.description,
                "travels in a URL unescaped")
    }

    @Test("leading zeros are read but not kept: the written form is canonical")
    func leadingZeros() throws {
        let cursor = try #require(NoteCursor("000123_" + Self.id))
        #expect(cursor.description == "123_" + Self.id)
        #expect(cursor == NoteCursor("123_" + Self.id))
    }
}
