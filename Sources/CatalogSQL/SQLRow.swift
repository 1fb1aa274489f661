import Foundation

/// One row of a query result, read by column name (case-insensitively: PostgreSQL folds
/// unquoted names to lower case).
public struct SQLRow: Sendable {
    /// Column names, in order.
    public let columns: [String]
    /// Values, in column order.
    public let values: [SQLValue]

    /// A row of `values` named by `columns`.
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, or `.null` when there is no such column.
    public subscript(_ column: String) -> SQLValue {
        if let index = columns.firstIndex(of: column) { return values[index] }
        let lowered = column.lowercased()
        guard let index = columns.firstIndex(where: { $0.lowercased() == lowered }) else { return .null }
        return values[index]
    }

    /// The value at `index`.
    public subscript(_ index: Int) -> SQLValue { values[index] }

    /// Text in `column`; `nil` for `NULL`.
    public func string(_ column: String) throws(SQLDecodingError) -> String? {
        switch self[column] {
        case .null: return nil
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        }
    }

    /// Text in `column`, which must not be `NULL`.
    public func requiredString(_ column: String) throws(SQLDecodingError) -> String {
        guard let value = try string(column) else { throw SQLDecodingError(column: column, reason: "is NULL") }
        return value
    }

    /// An integer in `column`; `nil` for `NULL`.
    public func int64(_ column: String) throws(SQLDecodingError) -> Int64? {
        switch self[column] {
        case .null: return nil
        case .integer(let value): return value
        case .real(let value):
            guard value.isFinite, let whole = Int64(exactly: value.rounded(.towardZero)) else {
                throw SQLDecodingError(column: column, reason: "holds \(value), not an integer Int64 can hold")
            }
            return whole
        case .text(let text):
            guard let value = Int64(text) else { throw SQLDecodingError(column: column, reason: "holds \"\(text)\", not an integer") }
            return value
        case .blob: throw SQLDecodingError(column: column, reason: "holds bytes, not an integer")
        }
    }

    /// An integer in `column`, which must not be `NULL`.
    public func requiredInt64(_ column: String) throws(SQLDecodingError) -> Int64 {
        guard let value = try int64(column) else { throw SQLDecodingError(column: column, reason: "is NULL") }
        return value
    }

    /// An `Int` in `column`; `nil` for `NULL`.
    public func int(_ column: String) throws(SQLDecodingError) -> Int? { try int64(column).map { Int($0) } }

    /// A truth value in `column` (SQLite answers 0/1, PostgreSQL `true`/`false`); `NULL` is false.
    public func bool(_ column: String) throws(SQLDecodingError) -> Bool {
        switch self[column] {
        case .null: return false
        case .integer(let value): return value != 0
        case .real(let value): return value != 0
        case .text(let text): return ["t", "true", "1"].contains(text.lowercased())
        case .blob: throw SQLDecodingError(column: column, reason: "holds bytes, not a truth value")
        }
    }

    /// A date in `column` (stored as text, see ``SQLDateFormat``); `nil` for `NULL`.
    public func date(_ column: String) throws(SQLDecodingError) -> Date? {
        guard let text = try string(column) else { return nil }
        guard let date = SQLDateFormat.date(from: text) else { throw SQLDecodingError(column: column, reason: "holds \"\(text)\", not a date") }
        return date
    }

    /// A date in `column`, which must not be `NULL`.
    public func requiredDate(_ column: String) throws(SQLDecodingError) -> Date {
        guard let value = try date(column) else { throw SQLDecodingError(column: column, reason: "is NULL") }
        return value
    }

    /// Bytes in `column`; `nil` for `NULL`.
    public func data(_ column: String) throws(SQLDecodingError) -> Data? {
        switch self[column] {
        case .null: return nil
        case .blob(let data): return data
        case .text(let text): return Data(text.utf8)
        default: throw SQLDecodingError(column: column, reason: "holds a number, not bytes")
        }
    }
}

/// A column that does not hold what the catalog expects there.
public struct SQLDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The column.
    public let column: String
    /// What is wrong with it.
    public let reason: String

    /// An error for `column`.
    public init(column: String, reason: String) {
        self.column = column
        self.reason = reason
    }

    public var description: String { "catalog column \(column) \(reason)" }
}
