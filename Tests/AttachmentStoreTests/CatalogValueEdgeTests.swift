import CatalogSQL
import Foundation
import Testing

/// Values at the edges of what the catalog's text and number columns hold: instants before 1970
/// with a fraction of a second, and real numbers no integer can hold. (Found by the unit tests of
/// issue 15: the first wrote a negative millisecond field, the second stopped the process.)
@Suite("Catalog value edges")
struct CatalogValueEdgeTests {
    @Test("an instant before 1970 is written with the millisecond field counted forward from the second before it", arguments: [
        (-0.5, "1969-12-31 23:59:59.500"), (-1.5, "1969-12-31 23:59:58.500"), (-86_400.25, "1969-12-30 23:59:59.750"),
        (-0.25, "1969-12-31 23:59:59.750"), (0, "1970-01-01 00:00:00.000"), (1_700_000_000.123, "2023-11-14 22:13:20.123"),
    ])
    func datesBefore1970(seconds: Double, text: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(SQLDateFormat.string(from: date) == text)
        let back = try #require(SQLDateFormat.date(from: text))
        #expect(abs(back.timeIntervalSince1970 - seconds) < 0.001)
    }

    @Test("an instant no calendar shows, or not a number at all, is written without stopping the process")
    func unrepresentableDates() {
        #expect(SQLDateFormat.string(from: Date(timeIntervalSince1970: .infinity)) == "1970-01-01 00:00:00.000")
        #expect(SQLDateFormat.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01 00:00:00.000")
        #expect(!SQLDateFormat.string(from: Date(timeIntervalSince1970: 1e300)).isEmpty)
    }

    @Test("a real number in an integer column is cut toward zero when an integer can hold it", arguments: [
        (3.9, Int64(3)), (-3.9, Int64(-3)), (0.0, Int64(0)), (9.0e18, Int64(9_000_000_000_000_000_000)),
    ])
    func realsThatFit(value: Double, expected: Int64) throws {
        #expect(try SQLRow(columns: ["n"], values: [.real(value)]).int64("n") == expected)
    }

    @Test("a real number no integer can hold is a decoding error naming the column, not a crash", arguments: [
        1e19, -1e19, Double.nan, Double.infinity, -Double.infinity,
    ])
    func realsThatDoNotFit(value: Double) {
        #expect(throws: SQLDecodingError.self) { try SQLRow(columns: ["n"], values: [.real(value)]).int64("n") }
        #expect(throws: SQLDecodingError.self) { try SQLRow(columns: ["n"], values: [.real(value)]).requiredInt64("n") }
    }
}
