/// The columns a record type writes to its table, each named once with the value it takes from
/// a record: the insert and upsert statements and their arguments are built from this one list,
/// so adding a column is one line and a statement can never list the columns in another order
/// than its arguments.
///
/// ```swift
/// static let columns = SQLColumns<TagRecord>(table: "tag", key: ["id"], [
///     .init("id") { .text($0.id) },
///     .init("name") { .text($0.name) },
/// ])
/// try db.execute(TagRecord.columns.insert, TagRecord.columns.arguments(of: tag))
/// ```
package struct SQLColumns<Record>: Sendable {
    /// One written column: its name and how a record gives its value.
    package struct Column: Sendable {
        /// The column's name in the table.
        package let name: String
        /// The record's value for the column.
        package let value: @Sendable (Record) -> SQLValue

        /// A column named `name` whose value `value` takes from a record.
        package init(_ name: String, _ value: @escaping @Sendable (Record) -> SQLValue) {
            self.name = name
            self.value = value
        }
    }

    /// The table the columns belong to.
    package let table: String
    /// The columns, in the order of ``insert``'s placeholders and of ``arguments(of:)``.
    package let columns: [Column]
    /// `INSERT INTO table (columns…) VALUES (?, …)`.
    package let insert: String
    /// ``insert`` that leaves an existing row with the same key alone.
    package let insertIfAbsent: String
    /// ``insert`` that, when a row with the same key exists, replaces every other column of it.
    package let upsert: String

    /// The columns of `table`, whose rows are identified by the columns named in `key` (the
    /// conflict target of ``upsert``). Every name in `key` must be one of `columns`.
    package init(table: String, key: [String], _ columns: [Column]) {
        let names = columns.map(\.name)
        precondition(Set(key).isSubset(of: names), "the key of \(table) names a column it does not write")
        precondition(Set(names).count == names.count, "a column of \(table) is named twice")
        self.table = table
        self.columns = columns
        insertHead = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES "
        rowPlaceholders = "(" + SQLPlaceholders.list(names.count) + ")"
        insert = insertHead + rowPlaceholders
        let conflict = " ON CONFLICT (\(key.joined(separator: ", ")))"
        insertIfAbsent = insert + conflict + " DO NOTHING"
        let replaced = names.filter { !key.contains($0) }
        upsertTail = replaced.isEmpty
            ? conflict + " DO NOTHING"
            : conflict + " DO UPDATE SET " + replaced.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        upsert = insert + upsertTail
    }

    /// `INSERT INTO table (columns…) VALUES `: what every insert starts with.
    private let insertHead: String
    /// `(?, …)`: one row's placeholders.
    private let rowPlaceholders: String
    /// What ``upsert`` adds to an insert: its conflict target and what it replaces.
    private let upsertTail: String

    /// The names of the columns, in order.
    package var names: [String] { columns.map(\.name) }

    /// ``upsert`` for `count` rows in one statement: `INSERT INTO table (columns…) VALUES (?, …),
    /// (?, …), … ON CONFLICT (key) DO UPDATE SET …`, whose arguments are each row's
    /// ``arguments(of:)`` one after another. The rows must have distinct keys (PostgreSQL
    /// refuses a statement that would update one row twice).
    package func upsert(rows count: Int) -> String {
        precondition(count > 0, "an upsert of no rows")
        return insertHead + Array(repeating: rowPlaceholders, count: count).joined(separator: ", ") + upsertTail
    }

    /// A record's values, in the columns' order: the arguments of ``insert``, ``insertIfAbsent``
    /// and ``upsert``.
    package func arguments(of record: Record) -> [SQLValue] {
        columns.map { $0.value(record) }
    }
}
