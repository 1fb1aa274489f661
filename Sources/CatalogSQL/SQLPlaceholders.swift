/// The placeholders of an `IN` list, and the size lists are cut to: both catalogs take at
/// least 32,766 bound values a statement, and a list of ``chunkSize`` keeps every statement
/// that holds one well under it.
public enum SQLPlaceholders {
    /// The most values one `IN` list holds; a longer list is queried in pieces of this size.
    public static let chunkSize = 1_000

    /// `?, ?, …`: the placeholders of an `IN` list of `count` values.
    public static func list(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `values` in consecutive pieces of at most ``chunkSize``.
    public static func chunks<Value>(_ values: [Value]) -> [ArraySlice<Value>] {
        stride(from: 0, to: values.count, by: chunkSize).map { values[$0..<min(values.count, $0 + chunkSize)] }
    }
}
