@testable import AttachmentServer
import Testing

/// `Range` headers resolved against a size, beyond the cases of the "Byte ranges" and "HTTP
/// header values" suites: every small range against every small size, numbers at and past
/// `Int64`'s limit, whitespace, and syntax that is only almost right. (The suite type is not
/// named `ByteRangeTests`: MultipartReaderTests.swift holds a suite of that name.)
@Suite("Byte range parsing")
struct ByteRangeParsingTests {
    @Test("every range of up to 8 against every size up to 6 resolves as RFC 9110 says")
    func smallRangesAgainstSmallSizes() {
        for size in Int64(0)...6 {
            for first in Int64(0)...8 {
                for last in Int64(0)...8 {
                    let expected: ByteRange = first > last ? .ignored
                        : first >= size ? .unsatisfiable : .satisfiable(first...min(last, size - 1))
                    #expect(ByteRange(header: "bytes=\(first)-\(last)", size: size) == expected, "bytes=\(first)-\(last) of \(size)")
                }
                let open: ByteRange = first >= size ? .unsatisfiable : .satisfiable(first...(size - 1))
                #expect(ByteRange(header: "bytes=\(first)-", size: size) == open, "bytes=\(first)- of \(size)")
                let suffix: ByteRange = first == 0 || size == 0 ? .unsatisfiable : .satisfiable(max(0, size - first)...(size - 1))
                #expect(ByteRange(header: "bytes=-\(first)", size: size) == suffix, "bytes=-\(first) of \(size)")
            }
        }
    }

    @Test("numbers past Int64.max count as beyond any file: a last position that large means the end, a first one is unsatisfiable", arguments: [
        ("bytes=0-9223372036854775807", ByteRange.satisfiable(0...999)),
        ("bytes=-9223372036854775807", .satisfiable(0...999)),
        ("bytes=9223372036854775807-", .unsatisfiable),
        ("bytes=9223372036854775807-9223372036854775807", .unsatisfiable),
        ("bytes=9223372036854775808-", .unsatisfiable),
        ("bytes=0-9223372036854775808", .satisfiable(0...999)),
        ("bytes=0-99999999999999999999", .satisfiable(0...999)),
        ("bytes=500-99999999999999999999", .satisfiable(500...999)),
        ("bytes=-99999999999999999999", .satisfiable(0...999)),
        ("bytes=99999999999999999999-99999999999999999999", .unsatisfiable),
        ("bytes=007-010", .satisfiable(7...10)),
        ("bytes=-007", .satisfiable(993...999)),
        ("bytes=0000000000000000000000000001-2", .satisfiable(1...2)),
    ])
    func largeNumbers(header: String, expected: ByteRange) {
        #expect(ByteRange(header: header, size: 1000) == expected, "\(header)")
    }

    @Test("a body of Int64.max bytes resolves its ends without overflowing")
    func largestBody() {
        #expect(ByteRange(header: "bytes=-1", size: .max) == .satisfiable((.max - 1)...(.max - 1)))
        #expect(ByteRange(header: "bytes=0-", size: .max) == .satisfiable(0...(.max - 1)))
        #expect(ByteRange(header: "bytes=-9223372036854775807", size: .max) == .satisfiable(0...(.max - 1)))
    }

    @Test("spaces and tabs around the value, the numbers and the dash are allowed", arguments: [
        "\tbytes=0-4\t", "bytes=\t0\t-\t4", "bytes= 0 -4", "  BYTES=0 - 4  ",
    ])
    func whitespace(header: String) {
        #expect(ByteRange(header: header, size: 100) == .satisfiable(0...4))
    }

    @Test("syntax that is only almost right makes the header ignored, never an error", arguments: [
        "bytes =0-4", "bytes", "bytes=", "bytes=5", "bytes=0-4-9", "bytes==0-4", "bytes=-5-", "bytes=0 1-4",
        "bytes=1.5-3", "bytes=１-２", "bytes=٣-٤", "bytes=0-4,", "bytes=,0-4", "bytes=0-4, 0-4", "bytes=-1,-1",
    ])
    func almostRight(header: String) {
        #expect(ByteRange(header: header, size: 100) == .ignored, "\(header)")
    }

    @Test("a unit other than bytes is ignored, even with a range that would fit", arguments: [
        "none", "bytes:0-4", "byte=0-4", "bits=0-4", "kilobytes=0-4", "x-bytes=0-4", "bytesx=0-4", "items=0-0",
    ])
    func otherUnits(header: String) {
        #expect(ByteRange(header: header, size: 100) == .ignored)
        #expect(ByteRange(header: header, size: 0) == .ignored, "an empty body ignores it too, rather than refusing it")
    }

    @Test("several ranges are ignored on an empty body as on any other, not refused")
    func severalRangesOfAnEmptyBody() {
        #expect(ByteRange(header: "bytes=0-0,1-1", size: 0) == .ignored)
        #expect(ByteRange(header: "bytes=-1,-2", size: 0) == .ignored)
    }
}
