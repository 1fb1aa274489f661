import CatalogSQL
import Foundation
import Testing

/// The edges of `SQLRow`'s accessors and `SQLValue`/`SQLDateFormat` that the basic decoding
/// tests leave out: columns named twice, every accessor on an absent column, integer text at
/// and past Int64's limits, reals truncated toward zero, bytes that are not UTF-8, empty bytes,
/// numbers refused as bytes or dates, values of different storage classes never equal, and
/// dates before 1970 read back.
@Suite("CatalogSQL: row and value conversion edges")
struct SQLRowConversionEdgeTests {
    /// The `SQLDecodingError` `body` throws, or nil when it returns.
    static func decodingError(_ body: () throws -> Void) -> SQLDecodingError? {
        do {
            try body()
            return nil
        } catch let error as SQLDecodingError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    static func row(_ value: SQLValue) -> SQLRow { SQLRow(columns: ["c"], values: [value]) }

    // MARK: - Columns

    @Test("of two columns with the same name, the first is read; the second stays reachable by position")
    func duplicateNamesReadTheFirst() {
        let row = SQLRow(columns: ["id", "id"], values: [.integer(1), .integer(2)])
        #expect(row["id"] == .integer(1))
        #expect(row["ID"] == .integer(1))
        #expect(row[1] == .integer(2))
    }

    @Test("every optional accessor reads an absent column as NULL; every required one refuses it by name")
    func absentColumn() throws {
        let row = SQLRow(columns: ["present"], values: [.integer(1)])
        #expect(try row.int64("absent") == nil)
        #expect(try row.int("absent") == nil)
        #expect(try row.data("absent") == nil)
        #expect(try row.date("absent") == nil)
        #expect(try row.bool("absent") == false)
        #expect(Self.decodingError { _ = try row.requiredInt64("absent") } == SQLDecodingError(column: "absent", reason: "is NULL"))
        #expect(Self.decodingError { _ = try row.requiredDate("absent") } == SQLDecodingError(column: "absent", reason: "is NULL"))
    }

    // MARK: - Text and integers

    @Test("text of numbers at their limits, and of whole reals, is their Swift decimal form", arguments: [
        (SQLValue.integer(Int64.max), "9223372036854775807"),
        (.integer(Int64.min), "-9223372036854775808"),
        (.real(3), "3.0"),
        (.real(-0.25), "-0.25"),
        (.text(""), ""),
    ])
    func numberText(value: SQLValue, text: String) throws {
        #expect(try Self.row(value).string("c") == text)
    }

    @Test("bytes that are not UTF-8 read as text with replacement characters instead of failing")
    func invalidUTF8Blob() throws {
        #expect(try Self.row(.blob(Data([0x61, 0xFF, 0x62]))).string("c") == "a\u{FFFD}b")
    }

    @Test("reals are truncated toward zero, negative ones too", arguments: [
        (2.9, 2), (-2.9, -2), (-0.5, 0), (1e15 + 0.5, 1_000_000_000_000_000),
    ] as [(Double, Int64)])
    func realsTruncate(real: Double, integer: Int64) throws {
        #expect(try Self.row(.real(real)).int64("c") == integer)
    }

    @Test("integer text reads across Int64's whole range", arguments: [
        ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min), ("+7", 7), ("007", 7),
    ] as [(String, Int64)])
    func integerTextLimits(text: String, integer: Int64) throws {
        #expect(try Self.row(.text(text)).int64("c") == integer)
    }

    @Test("integer text with spaces, a fraction, nothing, or past Int64 is refused, quoted", arguments: [
        " 12", "12 ", "12.5", "", "9223372036854775808", "-9223372036854775809", "1e3", "0x10",
    ])
    func integerTextRefused(text: String) {
        #expect(Self.decodingError { _ = try Self.row(.text(text)).int64("c") }
            == SQLDecodingError(column: "c", reason: "holds \"\(text)\", not an integer"))
    }

    @Test("the Int accessor gives the same value as the Int64 one")
    func intMatchesInt64() throws {
        for value in [SQLValue.integer(-1), .integer(Int64.max), .real(7.9), .text("42"), .null] {
            #expect(try Self.row(value).int("c") == Self.row(value).int64("c").map { Int($0) })
        }
    }

    // MARK: - Truth values, bytes, dates

    @Test("truth text is read in any case; other digits than 1 are false", arguments: [
        ("True", true), ("tRuE", true), ("T", true), ("0", false), ("2", false), ("on", false),
    ])
    func truthTextCases(text: String, expected: Bool) throws {
        #expect(try Self.row(.text(text)).bool("c") == expected)
    }

    @Test("empty bytes are bytes, not NULL")
    func emptyBlob() throws {
        #expect(try Self.row(.blob(Data())).data("c") == Data())
        #expect(try Self.row(.text("")).data("c") == Data())
    }

    @Test("a real is not bytes either")
    func realIsNotBytes() {
        #expect(Self.decodingError { _ = try Self.row(.real(1.5)).data("c") }
            == SQLDecodingError(column: "c", reason: "holds a number, not bytes"))
    }

    @Test("an integer or a date without its time is not a date, quoted as text", arguments: [
        (SQLValue.integer(1_709_251_198), "1709251198"),
        (.text("2024-02-29"), "2024-02-29"),
        (.real(0.5), "0.5"),
    ])
    func notDates(value: SQLValue, shown: String) {
        #expect(Self.decodingError { _ = try Self.row(value).date("c") }
            == SQLDecodingError(column: "c", reason: "holds \"\(shown)\", not a date"))
    }

    @Test("a date stored as bytes of its text reads as that date")
    func dateFromBlob() throws {
        let date = try #require(try Self.row(.blob(Data("2024-02-29 23:59:58.125".utf8))).date("c"))
        #expect(date.timeIntervalSince1970 == 1_709_251_198.125)
    }

    @Test("dates before 1970 read back to the millisecond", arguments: [
        ("1969-12-31 23:59:59.500", -0.5),
        ("1969-12-31 23:59:59.999", -0.001),
        ("1969-12-31 00:00:00.000", -86_400),
        ("1900-01-01 00:00:00.000", -2_208_988_800),
    ])
    func datesBefore1970(text: String, seconds: Double) throws {
        let date = try #require(SQLDateFormat.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test("whole milliseconds before 1970 written as text read back as the same instant", arguments: [
        Int64(-1), -999, -1001, -86_400_000, -2_208_988_800_000,
    ])
    func negativeMillisecondsRoundTrip(milliseconds: Int64) throws {
        let date = try #require(SQLDateFormat.date(from: SQLDateFormat.string(milliseconds: milliseconds)))
        #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
    }

    // MARK: - Values

    @Test("values of different storage classes are never equal, even when they print alike")
    func storageClassesDiffer() {
        #expect(SQLValue.integer(1) != .text("1"))
        #expect(SQLValue.integer(1) != .real(1))
        #expect(SQLValue.text("") != .null)
        #expect(SQLValue.blob(Data()) != .text(""))
        #expect(SQLValue.blob(Data("a".utf8)) != .text("a"))
        #expect(Set<SQLValue>([.integer(1), .text("1"), .real(1), .integer(1)]).count == 3)
    }

    @Test("an integer literal beyond a double's exact range stays exact")
    func largeIntegerLiteral() {
        let value: SQLValue = 9_007_199_254_740_993
        #expect(value == .integer(Int64(9_007_199_254_740_993)))
        #expect(value != .integer(Int64(9_007_199_254_740_992)))
    }
}
