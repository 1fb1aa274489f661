import Foundation
import HTTPTypes
import Hummingbird

/// JSON written straight into bytes, for the answers the server gives most (attachments and
/// their lists): the same text `JSONEncoder` writes with the API's settings (keys in the
/// order the caller gives them, which must be sorted by their UTF-8 bytes; slashes not
/// escaped; dates as ISO 8601 in UTC, whole seconds), without building a tree of values and
/// sorting it first.
///
/// Foundation's encoder took about 15 % of the server's CPU time for one attachment's JSON
/// (`perf record` of `attach serve` under `wrk`). The caller writes keys and values in
/// order; ``key(_:)`` and every value place the commas.
struct JSONText {
    /// The text so far.
    private(set) var bytes: [UInt8] = []
    /// Whether the next key or array element needs a comma before it.
    private var afterValue = false

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    /// The type of every JSON answer.
    static let contentType = HTTPField(name: .contentType, value: "application/json; charset=utf-8")

    /// A 200 with `json` as its body, headed as Hummingbird's JSON encoder heads one.
    static func response(_ json: JSONText) -> Response {
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers.append(contentType)
        headers.append(HTTPField(name: .contentLength, value: String(json.bytes.count)))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.bytes)))
    }

    /// `{`: an object begins (as a value: after a key, in an array, or at the top).
    mutating func openObject() { beginValue(); bytes.append(UInt8(ascii: "{")); afterValue = false }
    /// `}`: the object ends, and counts as a value.
    mutating func closeObject() { bytes.append(UInt8(ascii: "}")); afterValue = true }
    /// `[`: an array begins.
    mutating func openArray() { beginValue(); bytes.append(UInt8(ascii: "[")); afterValue = false }
    /// `]`: the array ends, and counts as a value.
    mutating func closeArray() { bytes.append(UInt8(ascii: "]")); afterValue = true }

    /// A member's name; its value follows.
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    /// Hex digits of a `\u00XX` escape, lowercase as `JSONEncoder` writes them.
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string: `"` and `\` escaped, the control characters as `JSONEncoder` escapes them
    /// (`\b \t \n \f \r`, the rest `\u00XX`), everything else (slashes, non-ASCII) as it is.
    mutating func string(_ value: String) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x00..<0x20:
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                          Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    /// A whole number in decimal.
    mutating func integer(_ value: some BinaryInteger) {
        beginValue()
        bytes += String(value).utf8
        afterValue = true
    }

    /// `true` or `false`.
    mutating func bool(_ value: Bool) {
        beginValue()
        bytes += (value ? "true" : "false").utf8
        afterValue = true
    }

    /// `2026-11-26T09:23:01Z`: the date in UTC, its fraction of a second dropped (rounded
    /// down, as `JSONEncoder`'s `.iso8601` does, also before 1970).
    mutating func date(_ value: Date) {
        let seconds = Int64(value.timeIntervalSince1970.rounded(.down))
        let (days, secondOfDay) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        func two(_ number: Int64) -> String { number < 10 ? "0\(number)" : "\(number)" }
        let yearText = String(year)
        let text = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-\(two(month))-\(two(day))T"
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
        string(text)
    }

    /// The proleptic Gregorian year, month and day `days` after 1970-01-01 (days counted in
    /// 400-year eras of 146,097 days, each starting on 1 March, so leap days fall last).
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private mutating func beginValue() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
    }
}

extension Int64 {
    /// The quotient rounded down (towards minus infinity).
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDivided(by:)``: between 0 and `divisor`.
    func floorModulo(_ divisor: Int64) -> Int64 { self - floorDivided(by: divisor) * divisor }
}
