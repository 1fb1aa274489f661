@testable import AttachmentServer
import AttachmentStore
import Testing

/// The small header parsers the file-serving routes decide with: entity tags and byte ranges.
@Suite("HTTP header values")
struct HTTPHeaderValueTests {
    static let tag = EntityTag.of(BlobHash(rawValue: String(repeating: "0f", count: 32))!)

    @Test("an entity tag is the blob's hash, quoted")
    func entityTagIsTheQuotedHash() {
        #expect(Self.tag == "\"" + String(repeating: "0f", count: 32) + "\"")
    }

    @Test("If-None-Match matches the tag itself, its weak form, a list holding it, and *", arguments: [
        (nil, false), ("*", true), (tag, true), ("W/" + tag, true), ("\"other\", " + tag, true), ("  \(tag)  ", true),
        ("\"other\"", false), ("\"other\", W/\"more\"", false), ("", false), (String(tag.dropFirst()), false),
    ] as [(String?, Bool)])
    func ifNoneMatch(header: String?, matches: Bool) {
        #expect(EntityTag.ifNoneMatch(header, matches: Self.tag) == matches)
    }

    @Test("If-Range keeps a range only for the same strong tag (absent means no condition)", arguments: [
        (nil, true), (tag, true), (" \(tag) ", true), ("W/" + tag, false), ("\"other\"", false),
        ("Wed, 21 Oct 2015 07:28:00 GMT", false), ("*", false),
    ] as [(String?, Bool)])
    func ifRange(header: String?, matches: Bool) {
        #expect(EntityTag.ifRange(header, matches: Self.tag) == matches)
    }

    @Test("Range headers resolve against a 1,000-byte body as RFC 9110 says", arguments: [
        ("bytes=0-99", ByteRange.satisfiable(0...99)),
        ("bytes=900-", .satisfiable(900...999)),
        ("bytes=-100", .satisfiable(900...999)),
        ("bytes=-5000", .satisfiable(0...999)),
        ("bytes=990-5000", .satisfiable(990...999)),
        ("bytes=999-999", .satisfiable(999...999)),
        ("BYTES=0-0", .satisfiable(0...0)),
        (" bytes= 10 - 19 ", .satisfiable(10...19)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=1000-2000", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-9,20-29", .ignored),
        ("items=0-9", .ignored),
        ("bytes=9-0", .ignored),
        ("bytes=-", .ignored),
        ("bytes=a-b", .ignored),
        ("bytes=--5", .ignored),
        ("bytes=+5-9", .ignored),
        ("bytes=5-+9", .ignored),
        ("bytes=0x10-20", .ignored),
        ("bytes=99999999999999999999-", .unsatisfiable),
        ("", .ignored),
    ])
    func rangeAgainstThousandBytes(header: String, expected: ByteRange) {
        #expect(ByteRange(header: header, size: 1000) == expected, "\(header)")
    }

    @Test("no range of an empty body exists, and no header means the whole body")
    func emptyBodyAndNoHeader() {
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-10", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: nil, size: 1000) == .ignored)
    }
}
