/// The catalog's columns that hold a blob hash, and the one rule for them: 64 lowercase
/// hexadecimal digits (a SHA-256), because a blob's hash is also its file's name. Migration
/// `v10` makes both catalogs refuse anything else; the store reads the same columns with
/// ``malformedQuery(_:)`` to refuse (or, in `verify`, report) a row written around that check.
public enum BlobHashColumns {
    /// One column that holds a blob hash, and the column that names its row in a message.
    public struct Column: Sendable, Equatable {
        /// The table, as the schema spells it.
        public let table: String
        /// The column holding the hash.
        public let column: String
        /// The column that tells the row apart (its key).
        public let rowKey: String
        /// Whether the column may be NULL (it names no blob then).
        public var optional = false
    }

    /// The columns migration `v10` made the catalog check: `blob.hash`, `attachment.blobHash`,
    /// `imageEntry.blobHash`, `blobContent.hash`, `blobLease.hash`.
    static let v10: [Column] = [
        Column(table: "blob", column: "hash", rowKey: "hash"),
        Column(table: "attachment", column: "blobHash", rowKey: "id"),
        Column(table: "imageEntry", column: "blobHash", rowKey: "key"),
        Column(table: "blobContent", column: "hash", rowKey: "hash"),
        Column(table: "blobLease", column: "hash", rowKey: "holder"),
    ]

    /// An attachment's second original, the clip of a Live Photo (`v22`; NULL for others).
    static let motion = Column(table: "attachment", column: "motionHash", rowKey: "id", optional: true)

    /// Every column holding a blob hash: those of ``v10`` and ``motion``.
    public static let all: [Column] = v10 + [motion]

    /// The statements that make the catalog refuse a malformed hash in `hashColumn`: what `v10`
    /// ran for its columns and `v22` for ``motion``.
    static func checkStatements(_ hashColumn: Column, _ dialect: SQLDialect) -> [String] {
        let (table, column) = (hashColumn.table, hashColumn.column)
        let name = "\(table)_\(column)_is_sha256"
        let present = hashColumn.optional ? "NEW.\(column) IS NOT NULL AND " : ""
        switch dialect {
        case .sqlite:
            // SQLite cannot add a CHECK to a table: triggers refuse the row instead (a
            // later migration that rebuilds one of these tables must make them again).
            return ["INSERT", "UPDATE OF \(column)"].map { event in
                """
                CREATE TRIGGER \(name)_\(event.prefix(6).lowercased()) BEFORE \(event) ON \(table)
                    WHEN \(present)\(isMalformed("NEW.\(column)", .sqlite))
                BEGIN SELECT RAISE(ABORT, '\(table).\(column) must be 64 lowercase hexadecimal digits'); END
                """
            }
        case .postgres:
            let check = "NOT \(isMalformed(column, .postgres))"
            return ["ALTER TABLE \(table) ADD CONSTRAINT \(name) CHECK (\(hashColumn.optional ? "\(column) IS NULL OR \(check)" : check))"]
        }
    }

    /// SQL that is true when `expression` is not 64 lowercase hexadecimal digits. SQLite has no
    /// regular expressions: a text of 64 characters, none left once the hex digits are trimmed
    /// (a value of another type, or with a NUL inside, fails too).
    public static func isMalformed(_ expression: String, _ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "(typeof(\(expression)) <> 'text' OR length(\(expression)) <> 64 OR ltrim(\(expression), '0123456789abcdef') <> '')"
        case .postgres:
            "(\(expression) !~ '^[0123456789abcdef]{64}$')"
        }
    }

    /// A query with one row per malformed hash in any of ``all``, at most `limit` of them:
    /// columns `tablename`, `columnname`, `rowkey`, `found` (read them with
    /// ``Malformed/init(row:)``).
    public static func malformedQuery(_ dialect: SQLDialect, limit: Int = 100) -> String {
        malformedQuery(all, dialect, limit: limit)
    }

    /// ``malformedQuery(_:limit:)`` over `columns` only (a catalog of an older version has fewer).
    static func malformedQuery(_ columns: [Column], _ dialect: SQLDialect, limit: Int) -> String {
        columns.map { column in
            """
            SELECT '\(column.table)' AS tablename, '\(column.column)' AS columnname,
                   CAST(\(column.rowKey) AS TEXT) AS rowkey, CAST(\(column.column) AS TEXT) AS found
            FROM \(column.table) WHERE \(column.optional ? "\(column.column) IS NOT NULL AND " : "")\(isMalformed(column.column, dialect))
            """
        }.joined(separator: "\nUNION ALL\n") + "\nLIMIT \(limit)"
    }

    /// A catalog row whose blob hash is not 64 lowercase hexadecimal digits: it names no file,
    /// and must never become a path.
    public struct Malformed: Sendable, Equatable, Codable, CustomStringConvertible {
        /// The table.
        public var table: String
        /// The column holding the bad value.
        public var column: String
        /// The row's key (its hash, id, image key or lease holder).
        public var row: String
        /// The value found.
        public var value: String

        /// A malformed value in `table.column` of the row `row`.
        public init(table: String, column: String, row: String, value: String) {
            self.table = table
            self.column = column
            self.row = row
            self.value = value
        }

        /// One row of ``malformedQuery(_:limit:)``.
        public init(row: SQLRow) throws(SQLDecodingError) {
            self.init(table: try row.requiredString("tablename"), column: try row.requiredString("columnname"),
                      row: try row.string("rowkey") ?? "", value: try row.string("found") ?? "")
        }

        /// `attachment row "…": blobHash "…" is not a SHA-256 (64 lowercase hexadecimal digits)`,
        /// with both values quoted and escaped, cut at 100 characters.
        public var description: String {
            "\(table) row \(Self.quoted(row)): \(column) \(Self.quoted(value)) is not a SHA-256 (64 lowercase hexadecimal digits)"
        }

        /// `text` in quotes, every character outside printable ASCII escaped, so a value made to
        /// forge a line or move the terminal cannot.
        static func quoted(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars.prefix(100) {
                switch scalar {
                case "\"", "\\": result += "\\" + String(scalar)
                case " "..."~": result.unicodeScalars.append(scalar)
                default: result += "\\u{\(String(scalar.value, radix: 16))}"
                }
            }
            return result + (text.unicodeScalars.count > 100 ? "…\"" : "\"")
        }
    }

    /// Runs ``malformedQuery(_:limit:)`` in `transaction`.
    /// - Throws: ``SQLDatabaseError`` from the database, ``SQLDecodingError``.
    public static func malformed(in transaction: any SQLTransaction, _ dialect: SQLDialect, limit: Int = 100) throws -> [Malformed] {
        try malformed(all, in: transaction, dialect, limit: limit)
    }

    /// ``malformed(in:_:limit:)`` over `columns` only.
    static func malformed(_ columns: [Column], in transaction: any SQLTransaction, _ dialect: SQLDialect, limit: Int) throws -> [Malformed] {
        try transaction.query(malformedQuery(columns, dialect, limit: limit), []).map { row throws in try Malformed(row: row) }
    }
}
