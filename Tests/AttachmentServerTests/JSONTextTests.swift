@testable import AttachmentServer
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The server writes its attachment JSON itself (`JSONText`); every value it writes must read
/// exactly as `JSONEncoder` with the API's settings writes it, byte for byte.
@Suite("JSON written without an encoder")
struct JSONTextTests {
    /// `JSONEncoder` as the API configures it.
    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `{"v":…}` written by `JSONText` with `write`.
    static func ours(_ write: (inout JSONText) -> Void) -> String {
        var json = JSONText()
        json.openObject()
        json.key("v")
        write(&json)
        json.closeObject()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// Strings with every control character, quotes, backslashes, slashes, DEL, line and
    /// paragraph separators, accents, emoji, and random Unicode scalars.
    static func strings() -> [String] {
        var strings = ["", "plain", "a\"b\\c/d", "\u{7F}\u{2028}\u{2029}", "é😀👩‍👩‍👧", "</script>", String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) })]
        var random = SplitMix(seed: 20261126)
        for _ in 0..<300 {
            strings.append(String(String.UnicodeScalarView((0..<Int.random(in: 1...12, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: [0x7F, 0x800, 0x11_0000][Int.random(in: 0...2, using: &random)] > 0x7F ? 0...0x2FFF : 0...0x7F, using: &random))
            })))
        }
        return strings
    }

    @Test("strings are escaped as JSONEncoder escapes them")
    func stringsMatchFoundation() throws {
        for string in Self.strings() {
            #expect(Self.ours { $0.string(string) } == (try Self.foundation(["v": string])), "\(string.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("integers and booleans are written as JSONEncoder writes them")
    func numbersMatchFoundation() throws {
        for number: Int64 in [0, 1, -1, 42, Int64.max, Int64.min, 2_000_000_000_000] {
            #expect(Self.ours { $0.integer(number) } == (try Self.foundation(["v": number])))
        }
        for flag in [true, false] { #expect(Self.ours { $0.bool(flag) } == (try Self.foundation(["v": flag]))) }
    }

    @Test("dates are ISO 8601 in UTC, the fraction dropped as JSONEncoder drops it, before 1970 too")
    func datesMatchFoundation() throws {
        var random = SplitMix(seed: 1970)
        var seconds: [Double] = [0, -0.5, -1, -1.5, 0.999, 951_782_400, 951_868_799.9, 4_107_542_400, -2_208_988_800, 253_402_300_799]
        for _ in 0..<2_000 { seconds.append(Double.random(in: -4_000_000_000...8_000_000_000, using: &random)) }
        for second in seconds {
            let date = Date(timeIntervalSince1970: second)
            #expect(Self.ours { $0.date(date) } == (try Self.foundation(["v": date])), "\(second)")
        }
    }

    @Test("an attachment's metadata keeps JSONEncoder's key order: UTF-8 bytes, capitals first")
    func metadataOrderMatchesFoundation() throws {
        let metadata = ["10": "a", "9": "b", "B": "c", "Z": "d", "_": "e", "a": "f", "a-": "g", "aa": "h", "é": "i", "A": "j", "": "k"]
        var attachment = AttachmentResourceJSONTests.photo
        attachment.metadata = metadata
        let text = String(decoding: AttachmentResource(attachment).jsonText.bytes, as: UTF8.self)
        #expect(text.contains("\"metadata\":" + (try Self.foundation(metadata))), "\(text)")
    }

    @Test("a list of attachments reads back as the same resources, with and without a next page")
    func listReadsBack() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var second = AttachmentResourceJSONTests.photo
        second.id = AttachmentID(rawValue: "a-8")
        second.image = nil
        let resources = [AttachmentResource(AttachmentResourceJSONTests.photo), AttachmentResource(second, fetch: .init(received: 5, total: 9))]
        for next in [nil, "/api/notes/n-3/attachments?after=a-8"] {
            let list = AttachmentList(attachments: resources, next: next)
            let decoded = try decoder.decode(AttachmentList.self, from: Data(list.jsonText.bytes))
            #expect(decoded.attachments == resources.map { AttachmentResource($0.attachment, fetch: $0.fetch) })
            #expect(decoded.next == next)
        }
        let empty = String(decoding: AttachmentList(attachments: [], next: nil).jsonText.bytes, as: UTF8.self)
        #expect(empty == #"{"attachments":[]}"#)
    }

    @Test("a page of notes is written as JSONEncoder writes it, with and without a next page, odd text included")
    func notePageMatchesFoundation() throws {
        let strings = Self.strings()
        var random = SplitMix(seed: 2811)
        let notes = (0..<40).map { index in
            NoteResource(Note(id: NoteID(rawValue: "n-\(index)"), title: strings[index % strings.count], body: strings[(index * 7) % strings.count],
                              createdAt: Date(timeIntervalSince1970: Double.random(in: -1_000_000_000...4_000_000_000, using: &random)),
                              updatedAt: Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &random))))
        }
        for next in [nil, "limit=50&after=1700000000000_n-39"] {
            for page in [NotePage(notes: notes, limit: 50, offset: 0, next: next), NotePage(notes: [], limit: 10, offset: 20, next: next)] {
                #expect(String(decoding: page.jsonText.bytes, as: UTF8.self) == (try Self.foundation(page)))
            }
        }
    }
}
