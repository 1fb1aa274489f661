import CatalogSQL
import Foundation
import Testing

/// Reading catalog rows (``SQLRow``) as the record types do: finding a column whatever case
/// its database gives it, converting between storage classes the way SQLite and PostgreSQL
/// answer, and the message of each ``SQLDecodingError``. Rows are built by hand; no database.
@Suite("Catalog row decoding")
struct SQLRowDecodingTests {
    @Test("a column is found by its exact name first, else by its name in any case; a missing one is NULL")
    func columnLookup() throws {
        let row = SQLRow(columns: ["noteid", "noteId", "Title"], values: [.text("folded"), .text("exact"), .text("t")])
        #expect(row["noteId"] == .text("exact"))
        #expect(row["NOTEID"] == .text("folded"), "the first column equal in any case")
        #expect(row["title"] == .text("t"))
        #expect(row["missing"] == .null)
        #expect(row[2] == .text("t"))
        #expect(try row.string("missing") == nil)
    }

    @Test("text reads from every storage class: integers and reals as their digits, bytes as UTF-8")
    func stringConversions() throws {
        let row = SQLRow(columns: ["i", "r", "t", "b", "n"],
                         values: [.integer(-42), .real(1.5), .text("x"), .blob(Data("héllo".utf8)), .null])
        #expect(try row.string("i") == "-42")
        #expect(try row.string("r") == "1.5")
        #expect(try row.string("t") == "x")
        #expect(try row.string("b") == "héllo")
        #expect(try row.string("n") == nil)
        #expect(throws: SQLDecodingError(column: "n", reason: "is NULL")) { try row.requiredString("n") }
    }

    @Test("integers read from integers, whole reals (truncated) and numeric text; other text and bytes are errors")
    func integerConversions() throws {
        let row = SQLRow(columns: ["i", "r", "t", "bad", "b", "n"],
                         values: [.integer(Int64.max), .real(7.9), .text("-12"), .text("12 apples"), .blob(Data([1])), .null])
        #expect(try row.int64("i") == Int64.max)
        #expect(try row.int64("r") == 7)
        #expect(try row.int("t") == -12)
        #expect(try row.int("n") == nil)
        #expect(throws: SQLDecodingError(column: "bad", reason: "holds \"12 apples\", not an integer")) { try row.int64("bad") }
        #expect(throws: SQLDecodingError(column: "b", reason: "holds bytes, not an integer")) { try row.int64("b") }
        #expect(throws: SQLDecodingError(column: "n", reason: "is NULL")) { try row.requiredInt64("n") }
    }

    @Test("a truth value reads SQLite's 0/1 and PostgreSQL's t/true; NULL and anything else is false", arguments: [
        (SQLValue.integer(1), true), (.integer(0), false), (.integer(-3), true), (.real(0.0), false), (.real(0.5), true),
        (.text("t"), true), (.text("TRUE"), true), (.text("1"), true), (.text("f"), false), (.text("false"), false),
        (.text("yes"), false), (.text(""), false), (.null, false),
    ])
    func truthValues(value: SQLValue, expected: Bool) throws {
        #expect(try SQLRow(columns: ["found"], values: [value]).bool("found") == expected)
    }

    @Test("bytes are not a truth value")
    func bytesAreNotTruth() {
        #expect(throws: SQLDecodingError(column: "found", reason: "holds bytes, not a truth value")) {
            try SQLRow(columns: ["found"], values: [.blob(Data())]).bool("found")
        }
    }

    @Test("a date reads from the catalog's text form; other text is an error naming the column and the text")
    func dates() throws {
        let row = SQLRow(columns: ["createdAt", "updatedAt", "checkedAt"],
                         values: [.text("2026-09-21 14:13:20.123"), .text("yesterday"), .null])
        let created = try row.requiredDate("createdAt")
        #expect(abs(created.timeIntervalSince1970 - 1_790_000_000.123) < 0.0005)
        #expect(try row.date("checkedAt") == nil)
        #expect(throws: SQLDecodingError(column: "updatedAt", reason: "holds \"yesterday\", not a date")) { try row.date("updatedAt") }
        #expect(throws: SQLDecodingError(column: "checkedAt", reason: "is NULL")) { try row.requiredDate("checkedAt") }
    }

    @Test("bytes read from blobs and from text as UTF-8; a number is not bytes")
    func bytes() throws {
        let row = SQLRow(columns: ["b", "t", "i", "n"], values: [.blob(Data([0, 255])), .text("ab"), .integer(1), .null])
        #expect(try row.data("b") == Data([0, 255]))
        #expect(try row.data("t") == Data("ab".utf8))
        #expect(try row.data("n") == nil)
        #expect(throws: SQLDecodingError(column: "i", reason: "holds a number, not bytes")) { try row.data("i") }
    }

    @Test("a decoding error says which catalog column holds what")
    func errorMessage() {
        #expect(SQLDecodingError(column: "metadata", reason: "is NULL").description == "catalog column metadata is NULL")
    }
}
