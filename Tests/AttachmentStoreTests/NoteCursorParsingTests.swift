@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing

/// ``NoteCursor``'s text form, which arrives in URLs: exactly what it accepts, what it
/// refuses, how a note's date or title becomes its place, and that what it writes reads back,
/// for each order.
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
        #expect(cursor.order == .updated)
        #expect(cursor.place == .milliseconds(milliseconds))
        #expect(cursor.id == NoteID(rawValue: Self.id))
        let created = try #require(NoteCursor("c" + text))
        #expect(created.order == .created && created.place == .milliseconds(milliseconds) && created.id == cursor.id)
    }

    @Test("anything else is no cursor", arguments: [
        "", "_", "1790000000123", "1790000000123_", "_" + id, "1790000000123-" + id,
        "1234567890123456_" + id,  // 16 digits
        "-1_" + id, "+1_" + id, " 1_" + id, "1 _" + id, "1.5_" + id, "0x1f_" + id, "١٢٣_" + id,
        "1_" + id.uppercased(), "1_" + id.replacingOccurrences(of: "-", with: ""), "1_" + id + "0", "1_" + String(id.dropLast()),
        "1_" + id.replacingOccurrences(of: "-", with: "_"), "1_3f2a0c4e1-b2c-4d5e-8f90-a1b2c3d4e5f6", "1_" + String(id.dropLast()) + "g",
        "1_" + id + "_2", "1__" + id, "1_" + String(id.dropLast()) + "é",
        // By creation and by title: a letter, then the place.
        "c_" + id, "c-1_" + id, "cc1_" + id, "C1_" + id, "c1234567890123456_" + id, "t_" + id, "T" + "MGE_" + id,
        "tMGE=_" + id, "tMG+E_" + id, "tMG/E_" + id, "tMG E_" + id, "tMGé_" + id, "t" + String(repeating: "A", count: 801) + "_" + id,
        "x1_" + id, "u1_" + id,
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
        #expect(cursor.place == .milliseconds(milliseconds))
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

    @Test("a cursor by creation takes the note's creation date and writes c<milliseconds>")
    func byCreation() throws {
        let note = Note(id: NoteID(rawValue: Self.id), title: "t", body: "", createdAt: Date(timeIntervalSince1970: 12.345),
                        updatedAt: Date(timeIntervalSince1970: 99))
        let cursor = NoteCursor(after: note, order: .created)
        #expect(cursor.place == .milliseconds(12_345))
        #expect(cursor.description == "c12345_" + Self.id)
        #expect(try #require(NoteCursor(cursor.description)) == cursor)
    }

    @Test("a cursor by title carries the title's sort key in base64url, reads back, and travels in a URL unescaped", arguments: [
        "Garden", "Trip 10", "été à Lyon", "", "   ", "東京 2026", "a/b+c?d=e&f", String(repeating: "🌊", count: 300), "x\u{0}y",
    ])
    func byTitle(title: String) throws {
        let note = Note(id: NoteID(rawValue: Self.id), title: title, body: "", createdAt: Date(), updatedAt: Date())
        let cursor = NoteCursor(after: note, order: .title)
        #expect(cursor.place == .titleKey(NoteTitleSortKey.key(for: title)))
        #expect(cursor.description.hasPrefix("t"))
        #expect(cursor.description.utf8.count <= 838, "the document's maxLength")
        #expect(cursor.description.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_".unicodeScalars.contains($0)) },
                "only base64url letters, the underscore and the id's characters: \(cursor.description)")
        let read = try #require(NoteCursor(cursor.description))
        #expect(read.order == .title)
        if !title.contains("\u{0}") { #expect(read == cursor) }
    }

    @Test("any base64url a title cursor may carry is a place: bytes that are not UTF-8 read as U+FFFD, NUL is dropped", arguments: [
        ("tAA_", ""),  // one NUL byte: an empty place, before every title
        ("t_w_", "\u{FFFD}"),  // 0xFF: not UTF-8
        ("tMA_", "0"), ("tMQ_", "1"), ("tMGFiYw_", "0abc"),
        ("tMGFiY_", "0ab"),  // a lone last character holds no whole byte: ignored
    ] as [(String, String)])
    func titlePlaceFromAnyBase64(prefix: String, key: String) throws {
        let cursor = try #require(NoteCursor(prefix + Self.id))
        #expect(cursor.order == .title)
        #expect(cursor.place == .titleKey(key))
    }
}
