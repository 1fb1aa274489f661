/// Rows of one table held back to be written together: several rows a statement cost SQLite
/// far less than one (a statement's setup, its statement journal and its end are paid once
/// for all its rows; measured on a peer's first page, about 40 % of SQLite's time).
///
/// The rows are written in the order they were added, by ``SQLColumns/upsert(rows:)`` in
/// statements of 64, 32, 16, 8, 4, 2 or 1 rows, so a connection compiles at most seven of them
/// per table. The caller keeps the rules that make holding a row back safe: no two held rows
/// share a key, and nothing reads or writes the table's held rows before ``write(in:)``.
///
/// ```swift
/// var tags = SQLUpsertBatch(TagRecord.columns)
/// for tag in received { tags.append(tag); if tags.isFull { try tags.write(in: db) } }
/// try tags.write(in: db)
/// ```
package struct SQLUpsertBatch<Record> {
    /// The most rows one statement writes.
    package static var rowsPerStatement: Int { 64 }

    private let columns: SQLColumns<Record>
    private var rows: [Record] = []

    /// An empty batch of rows of the table `columns` describes.
    package init(_ columns: SQLColumns<Record>) {
        self.columns = columns
    }

    /// Whether no row is held.
    package var isEmpty: Bool { rows.isEmpty }

    /// Whether as many rows are held as one statement writes: a good time to ``write(in:)``.
    package var isFull: Bool { rows.count >= Self.rowsPerStatement }

    /// Holds `record` back until ``write(in:)``.
    package mutating func append(_ record: Record) {
        rows.append(record)
    }

    /// Writes every held row (inserted, or replacing the row with its key) and holds none after.
    /// - Throws: ``SQLDatabaseError``; the transaction is then to be rolled back.
    package mutating func write(in db: any SQLTransaction) throws {
        var start = rows.startIndex
        while start < rows.endIndex {
            var size = Self.rowsPerStatement
            while size > rows.endIndex - start { size /= 2 }
            var arguments: [SQLValue] = []
            arguments.reserveCapacity(size * columns.columns.count)
            for record in rows[start..<start + size] {
                for column in columns.columns { arguments.append(column.value(record)) }
            }
            try db.execute(columns.upsert(rows: size), arguments)
            start += size
        }
        rows.removeAll(keepingCapacity: true)
    }
}
