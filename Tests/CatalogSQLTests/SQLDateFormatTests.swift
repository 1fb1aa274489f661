import CatalogSQL
import Foundation
import Testing

/// The text form of dates in the catalog (``SQLDateFormat``): the UTC text each instant is
/// written as, to the millisecond; the forms it reads back (with or without a fraction, a
/// space or a `T`); what it refuses; and that the text sorts in time order, which the
/// catalog's indexes and cursors rely on.
@Suite("Catalog date format")
struct SQLDateFormatTests {
    @Test("an instant is written as UTC text to the millisecond", arguments: [
        (Int64(0), "1970-01-01 00:00:00.000"), (1_790_000_000_123, "2026-09-21 14:13:20.123"),
        (951_782_400_000, "2000-02-29 00:00:00.000"), (1_709_164_799_999, "2024-02-28 23:59:59.999"),
        (253_402_300_799_999, "9999-12-31 23:59:59.999"),
    ])
    func writtenForm(milliseconds: Int64, text: String) {
        #expect(SQLDateFormat.string(milliseconds: milliseconds) == text)
        #expect(SQLDateFormat.string(from: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)) == text)
        #expect(SQLValue.date(Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)) == .text(text))
    }

    @Test("whole milliseconds before 1970 are written exactly, the fraction counting forward from the second", arguments: [
        (Int64(-1), "1969-12-31 23:59:59.999"), (-1000, "1969-12-31 23:59:59.000"), (-1001, "1969-12-31 23:59:58.999"),
        (-86_400_000, "1969-12-31 00:00:00.000"),
    ])
    func beforeTheEpoch(milliseconds: Int64, text: String) {
        #expect(SQLDateFormat.string(milliseconds: milliseconds) == text)
    }

    @Test("a date between two milliseconds is written as the earlier one, never rounded up into the next second", arguments: [
        (0.0009, "1970-01-01 00:00:00.000"), (1.9999, "1970-01-01 00:00:01.999"), (59.9996, "1970-01-01 00:00:59.999"),
    ])
    func truncatedToMilliseconds(seconds: TimeInterval, text: String) {
        #expect(SQLDateFormat.string(from: Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("what is written reads back as the same instant, to the millisecond", arguments: [
        Int64(0), 1, 999, 1000, 1_790_000_000_123, 951_782_400_000, 4_102_444_800_000,
    ])
    func roundTrip(milliseconds: Int64) throws {
        let text = SQLDateFormat.string(milliseconds: milliseconds)
        let date = try #require(SQLDateFormat.date(from: text))
        #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
    }

    @Test("a fraction of one, two or three digits is tenths, hundredths or thousandths; later digits are dropped", arguments: [
        ("2026-09-21 14:13:20.1", 100), ("2026-09-21 14:13:20.12", 120), ("2026-09-21 14:13:20.123", 123),
        ("2026-09-21 14:13:20.1239", 123), ("2026-09-21 14:13:20.123456789", 123), ("2026-09-21 14:13:20", 0),
        ("2026-09-21 14:13:20.", 0), ("2026-09-21 14:13:20.x", 0), ("2026-09-21 14:13:20.05Z", 50),
    ])
    func fractions(text: String, milliseconds: Int) throws {
        let date = try #require(SQLDateFormat.date(from: text))
        #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == 1_790_000_000_000 + Int64(milliseconds))
    }

    @Test("a T between date and time, and a trailing Z, read as the same instant")
    func isoSeparator() throws {
        let expected = Date(timeIntervalSince1970: 1_790_000_000.123)
        for text in ["2026-09-21T14:13:20.123", "2026-09-21T14:13:20.123Z", "2026-09-21 14:13:20.123"] {
            let date = try #require(SQLDateFormat.date(from: text), "\(text)")
            #expect(abs(date.timeIntervalSince(expected)) < 0.0005, "\(text)")
        }
    }

    @Test("text shorter than a whole second, or with a non-digit where a digit belongs, is no date", arguments: [
        "", "2026-09-21", "2026-09-21 14:13", "2026-09-21 14:13:2", "2026-09-21 14:13:2x", "x026-09-21 14:13:20",
        "2026-0a-21 14:13:20", "2026-09-21 1a:13:20", "20260921 141320.000", "-026-09-21 14:13:20", "２０２６-09-21 14:13:20",
    ])
    func refused(text: String) {
        #expect(SQLDateFormat.date(from: text) == nil, "\(text)")
    }

    @Test("the written text sorts in time order across digits, days, months, years and the millennium")
    func textSortsInTimeOrder() {
        let instants: [Int64] = [0, 9, 10, 999, 1000, 59_999, 60_000, 86_399_999, 86_400_000, 946_684_799_999, 946_684_800_000,
                                 1_709_164_799_999, 1_709_164_800_000, 1_790_000_000_123, 4_102_444_800_000]
        let texts = instants.map(SQLDateFormat.string(milliseconds:))
        #expect(texts.sorted() == texts)
        #expect(Set(texts).count == instants.count)
    }

    @Test("optional values bind as NULL when absent, and literals bind as text and integers")
    func valueHelpers() {
        #expect(SQLValue.integer(nil as Int?) == .null)
        #expect(SQLValue.integer(42 as Int?) == .integer(42))
        #expect(SQLValue.text(nil as String?) == .null)
        #expect(SQLValue.text("x" as String?) == .text("x"))
        let literals: [SQLValue] = ["note", 7]
        #expect(literals == [.text("note"), .integer(7)])
    }

    @Test("the digits written in place are what the format string writes, for 20,000 instants of years 0 to 9999")
    func digitsMatchTheFormatString() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                  Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(milliseconds - seconds * 1000))
            #expect(SQLDateFormat.string(milliseconds: milliseconds) == expected)
        }
    }
}
