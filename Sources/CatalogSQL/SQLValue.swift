import Foundation

/// A value bound to a catalog statement or read from a row: the storage classes both catalog
/// databases (SQLite, PostgreSQL) share.
///
/// Dates are stored as text in one fixed format (``SQLValue/date(_:)``), so that they sort and
/// compare the same way in every database and in catalogs written by earlier versions.
public enum SQLValue: Sendable, Equatable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// Text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// A date as text: `yyyy-MM-dd HH:mm:ss.SSS` in UTC (the format GRDB writes).
    public static func date(_ date: Date) -> SQLValue { .text(SQLDateFormat.string(from: date)) }

    /// An optional integer, `NULL` when absent.
    public static func integer(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }

    /// An optional text, `NULL` when absent.
    public static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

/// The text form of dates in the catalog.
public enum SQLDateFormat {
    /// `yyyy-MM-dd HH:mm:ss.SSS`, UTC.
    /// Whole milliseconds, rounded down (so half a second before 1970 is `23:59:59.500` of the
    /// day before); a date beyond ±285,000 years, or not finite, is written as the nearest of
    /// those bounds (or 1970), never as a trap.
    public static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let bound = 9e15
        return string(milliseconds: milliseconds.isFinite ? Int64(min(max(milliseconds, -bound), bound)) : 0)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS`, UTC, of an instant given in whole milliseconds since 1970:
    /// exact, with no floating-point step between the number and the text.
    public static func string(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year) + 1900
        let millisecond = Int(milliseconds - seconds * 1000)
        guard (0...9999).contains(year) else {
            // A year of more than four digits, or before year 0: rare enough for `String(format:)`.
            return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", year, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                          Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millisecond)
        }
        // Every catalog write formats its dates: the digits are written in place, not through a
        // format string (which cost a quarter of applying a peer's batch).
        return String(unsafeUninitializedCapacity: 23) { buffer in
            func put(_ value: Int, at start: Int, width: Int, then separator: UInt8?) {
                var rest = value
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                if let separator { buffer[start + width] = separator }
            }
            put(year, at: 0, width: 4, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mon) + 1, at: 5, width: 2, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mday), at: 8, width: 2, then: UInt8(ascii: " "))
            put(Int(parts.tm_hour), at: 11, width: 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_min), at: 14, width: 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_sec), at: 17, width: 2, then: UInt8(ascii: "."))
            put(millisecond, at: 20, width: 3, then: nil)
            return 23
        }
    }

    /// Parses `yyyy-MM-dd HH:mm:ss[.SSS]` (UTC), also with a `T` separator; `nil` otherwise.
    public static func date(from text: String) -> Date? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < scalars.count, (48...57).contains(scalars[index]) else { return nil }
                value = value * 10 + Int(scalars[index] - 48)
            }
            return value
        }
        func separator(_ index: Int, _ allowed: String) -> Bool { allowed.utf8.contains(scalars[index]) }
        guard separator(4, "-"), separator(7, "-"), separator(10, " T"), separator(13, ":"), separator(16, ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var milliseconds = 0
        if scalars.count > 20, scalars[19] == UInt8(ascii: ".") {
            let digits = scalars[20...].prefix { (48...57).contains($0) }.prefix(3)
            milliseconds = digits.reduce(0) { $0 * 10 + Int($1 - 48) } * [100, 10, 1][max(0, digits.count - 1)]
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)) + TimeInterval(milliseconds) / 1000)
    }
}
