/// The figures `attach stats` shows, kept by the catalog itself as rows change, so reading them
/// costs the same at a thousand records as at ten million: triggers on `note`, `attachment`,
/// `imageEntry` and `blob` add each change's difference to the `catalogTally` table, and each
/// blob row carries `referenceCount`, how many attachments and image entries name it (what
/// `gc` finds unreferenced blobs by, through a partial index, without a scan).
///
/// - SQLite (one writer at a time) keeps one row, `id = 0`, and adds to it.
/// - PostgreSQL (writers side by side) appends a row per change instead: an insert takes no lock
///   another writer waits for. Every 1,024th row folds the rows before it into row 0, under an
///   advisory lock tried, never waited for, so no writer queues behind another for a tally.
///
/// A figure is the sum of its column over all rows (``readQuery``). Migration `v19` creates
/// the table, the column and the triggers, then fills them with ``rebuildStatements(_:)``,
/// which a restore and `verify --repair` run again; ``recountQuery`` counts the same figures
/// the slow way, from the records themselves, for `verify` to compare.
public enum CatalogTally {
    /// One figure: its column, how the records count it (an aggregate over the catalog), and
    /// what one blob row contributes to it (`nil` for figures counted by other tables).
    public struct Figure: Sendable {
        /// The column of `catalogTally`, and the name the figure has in ``readQuery``.
        public let column: String
        /// A scalar query computing the figure from the records.
        let recount: String
        /// What the blob row `row` (`NEW` or `OLD`) adds to the figure.
        let blobShare: (@Sendable (_ row: String) -> String)?
    }

    /// A figure counted by `table`'s rows, one each.
    private static func rows(_ column: String, of table: String) -> Figure {
        Figure(column: column, recount: "SELECT COUNT(*) FROM \(table)", blobShare: nil)
    }

    /// Blobs in `state`, counted or their bytes summed.
    private static func blobs(_ column: String, in state: String, bytes: Bool = false) -> Figure {
        Figure(column: column,
               recount: "SELECT \(bytes ? "COALESCE(SUM(byteCount), 0)" : "COUNT(*)") FROM blob WHERE state = '\(state)'",
               blobShare: { row in "CASE WHEN \(row).state = '\(state)' THEN \(bytes ? "\(row).byteCount" : "1") ELSE 0 END" })
    }

    /// The columns whose hash counts as a reference to a blob, as a catalog of a version has
    /// them: `v19` counted attachments' and image entries' `blobHash`; `v22` added an
    /// attachment's second original, the clip of a Live Photo (`motionHash`, NULL for others).
    /// Each migration generates its statements from the columns its catalog has.
    enum ReferenceColumns {
        case v19, current

        /// `(table, column)` pairs, in order.
        var columns: [(table: String, column: String)] {
            switch self {
            case .v19: [("attachment", "blobHash"), ("imageEntry", "blobHash")]
            case .current: [("attachment", "blobHash"), ("attachment", "motionHash"), ("imageEntry", "blobHash")]
            }
        }

        /// The columns of `table`.
        func columns(of table: String) -> [String] { columns.filter { $0.table == table }.map(\.column) }

        /// Every reference, one row each, its hash as column `blobHash` (a blob named twice counts twice).
        var query: String {
            columns.map { $0.column == "blobHash" ? "SELECT blobHash FROM \($0.table)" : "SELECT \($0.column) AS blobHash FROM \($0.table) WHERE \($0.column) IS NOT NULL" }
                .joined(separator: " UNION ALL ")
        }

        /// How many references name the blob row of the enclosing query.
        var recount: String {
            "(" + columns.map { "(SELECT COUNT(*) FROM \($0.table) WHERE \($0.table).\($0.column) = blob.hash)" }.joined(separator: " + ") + ")"
        }
    }

    /// Every figure, in the order of ``readQuery``'s columns.
    public static let figures: [Figure] = figures(.current)

    /// The figures as a catalog with `references` counts them.
    static func figures(_ references: ReferenceColumns) -> [Figure] { [
        rows("notes", of: "note"),
        rows("attachments", of: "attachment"),
        rows("imageKeys", of: "imageEntry"),
        blobs("presentBlobs", in: "present"),
        blobs("presentBytes", in: "present", bytes: true),
        blobs("remoteBlobs", in: "remote"),
        blobs("evictedBlobs", in: "evicted"),
        blobs("damagedBlobs", in: "damaged"),
        // Bytes of every reference (a blob named twice counts twice) …
        Figure(column: "referencedBytes",
               recount: "SELECT COALESCE(SUM(blob.byteCount), 0) FROM (\(references.query)) AS reference JOIN blob ON blob.hash = reference.blobHash",
               blobShare: { row in "\(row).referenceCount * \(row).byteCount" }),
        // … and of every blob something references (once): the difference is what deduplication saved.
        Figure(column: "distinctReferencedBytes",
               recount: "SELECT COALESCE(SUM(byteCount), 0) FROM blob WHERE hash IN (\(references.query))",
               blobShare: { row in "CASE WHEN \(row).referenceCount > 0 THEN \(row).byteCount ELSE 0 END" }),
    ] }

    /// One row holding every figure, summed over the tally's rows (columns as ``figures``).
    public static let readQuery = "SELECT " + figures.map { "CAST(COALESCE(SUM(\($0.column)), 0) AS BIGINT) AS \($0.column)" }
        .joined(separator: ", ") + " FROM catalogTally"

    /// One row holding every figure counted from the records (columns as ``figures``); it reads
    /// the whole catalog.
    public static let recountQuery = "SELECT " + figures.map { "CAST((\($0.recount)) AS BIGINT) AS \($0.column)" }
        .joined(separator: ", ")

    /// A query of the blobs whose `referenceCount` is not what their records say (column
    /// `hash`), at most `limit`; it reads the whole catalog.
    public static func miscountedBlobsQuery(limit: Int) -> String {
        "SELECT hash FROM blob WHERE referenceCount <> \(ReferenceColumns.current.recount) LIMIT \(limit)"
    }

    /// Columns the triggers keep, which a copy of a catalog's rows into another must leave out
    /// (the copy's triggers count them again): by table.
    public static let derivedColumns: [String: Set<String>] = ["blob": ["referencecount"]]

    /// Statements that set every blob's `referenceCount` and the tally to what the records say
    /// (run after the triggers exist: what they add meanwhile is replaced).
    public static func rebuildStatements(_ dialect: SQLDialect) -> [String] { rebuildStatements(dialect, .current) }

    /// ``rebuildStatements(_:)`` for a catalog with `references`.
    static func rebuildStatements(_ dialect: SQLDialect, _ references: ReferenceColumns) -> [String] {
        let recount = references.recount
        let refcounts = "UPDATE blob SET referenceCount = \(recount) WHERE referenceCount <> \(recount)"
        let assignments = figures(references).map { "\($0.column) = (\($0.recount))" }.joined(separator: ", ")
        switch dialect {
        case .sqlite:
            return [refcounts, "DELETE FROM catalogTally WHERE id <> 0", "UPDATE catalogTally SET \(assignments) WHERE id = 0"]
        case .postgres:
            // One statement, one snapshot: the rows it folds away are the changes its recount sees.
            return [refcounts, "WITH folded AS (DELETE FROM catalogTally WHERE id <> 0) UPDATE catalogTally SET \(assignments) WHERE id = 0"]
        }
    }

    // MARK: - Migration v19

    /// Migration `v19`'s statements: the column, the table and its row 0, the triggers, the
    /// partial index of unreferenced blobs, then ``rebuildStatements(_:)``.
    static func migrationStatements(_ dialect: SQLDialect) -> [String] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let key = dialect == .sqlite ? "id INTEGER PRIMARY KEY" : "id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1) PRIMARY KEY"
        let columns = figures.map { "\($0.column) \(integer) NOT NULL DEFAULT 0" }.joined(separator: ", ")
        return [
            "ALTER TABLE blob ADD COLUMN referenceCount \(integer) NOT NULL DEFAULT 0",
            "CREATE TABLE catalogTally (\(key), \(columns))",
            "INSERT INTO catalogTally (id) VALUES (0)",
            "CREATE INDEX blob_unreferenced ON blob(hash) WHERE referenceCount = 0",
        ] + triggers(dialect, .v19) + rebuildStatements(dialect, .v19)
    }

    // MARK: - Migration v22

    /// Migration `v22`'s statements, after the `motionHash` column exists: an attachment's
    /// triggers made again to count its second original too, then ``rebuildStatements(_:)``.
    static func motionMigrationStatements(_ dialect: SQLDialect) -> [String] {
        let drop = switch dialect {
        case .sqlite: ["insert", "delete", "update"].map { "DROP TRIGGER attachment_tally_\($0)" }
        case .postgres: ["DROP TRIGGER attachment_tally ON attachment", "DROP FUNCTION attachment_tally()"]
        }
        return drop + referrerTriggers(dialect, .current, tables: ["attachment"]) + rebuildStatements(dialect, .current)
    }

    /// `change` as a statement: each `(column, expression)` added to the tally.
    private static func add(_ change: [(column: String, expression: String)], _ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "UPDATE catalogTally SET " + change.map { "\($0.column) = \($0.column) + (\($0.expression))" }.joined(separator: ", ") + " WHERE id = 0"
        case .postgres:
            "INSERT INTO catalogTally (" + change.map(\.column).joined(separator: ", ") + ") VALUES ("
                + change.map { "(\($0.expression))" }.joined(separator: ", ") + ") RETURNING id INTO delta"
        }
    }

    /// What a blob row adds to the tally: `NEW`'s share, less `OLD`'s.
    private static func blobChange(new: Bool, old: Bool) -> [(column: String, expression: String)] {
        figures.compactMap { figure in
            guard let share = figure.blobShare else { return nil }
            let parts = (new ? [share("NEW")] : []) + (old ? ["(\(share("OLD")))"] : [])
            return (figure.column, new ? parts.joined(separator: " - ") : "-" + parts[0])
        }
    }

    /// The records that name a blob, with the figure each counts in.
    private static let referrers = [(table: "attachment", figure: "attachments"), (table: "imageEntry", figure: "imageKeys")]

    /// The blobs' `referenceCount` moved by `step` (`+ 1`, `- 1`) for each hash column of the
    /// record `row` (`NEW`, `OLD`) of `table` (a NULL hash names no blob and moves nothing).
    private static func moveReferences(_ row: String, _ step: String, _ table: String, _ references: ReferenceColumns) -> String {
        references.columns(of: table).map { "UPDATE blob SET referenceCount = referenceCount \(step) WHERE hash = \(row).\($0)" }
            .joined(separator: "; ")
    }

    /// SQL true when a hash column of `table` differs between `OLD` and `NEW` (NULLs compared as values).
    private static func referencesChanged(_ table: String, _ references: ReferenceColumns, _ dialect: SQLDialect) -> String {
        references.columns(of: table).map { column in
            column == "blobHash" ? "OLD.blobHash <> NEW.blobHash" : dialect == .sqlite ? "OLD.\(column) IS NOT NEW.\(column)" : "OLD.\(column) IS DISTINCT FROM NEW.\(column)"
        }.joined(separator: " OR ")
    }

    /// The triggers: a note counts itself; an attachment or image entry counts itself and moves
    /// its blobs' `referenceCount`; a blob row adds its share of each figure, less the share its
    /// old version had.
    private static func triggers(_ dialect: SQLDialect, _ references: ReferenceColumns) -> [String] {
        let blobColumnsWatched = "state, byteCount, referenceCount"
        let blobChanged = "OLD.state <> NEW.state OR OLD.byteCount <> NEW.byteCount OR OLD.referenceCount <> NEW.referenceCount"
        let statements: [String]
        switch dialect {
        case .sqlite:
            statements = [
                "CREATE TRIGGER note_tally_insert AFTER INSERT ON note BEGIN \(add([("notes", "1")], .sqlite)); END",
                "CREATE TRIGGER note_tally_delete AFTER DELETE ON note BEGIN \(add([("notes", "-1")], .sqlite)); END",
                "CREATE TRIGGER blob_tally_insert AFTER INSERT ON blob BEGIN \(add(blobChange(new: true, old: false), .sqlite)); END",
                "CREATE TRIGGER blob_tally_delete AFTER DELETE ON blob BEGIN \(add(blobChange(new: false, old: true), .sqlite)); END",
                """
                CREATE TRIGGER blob_tally_update AFTER UPDATE OF \(blobColumnsWatched) ON blob WHEN \(blobChanged)
                BEGIN \(add(blobChange(new: true, old: true), .sqlite)); END
                """,
            ]
        case .postgres:
            let foldKey = "hashtextextended('attachmentstore.tally.' || current_schema(), 0)"
            let fold = """
                CREATE FUNCTION catalog_tally_fold() RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $fold$
                BEGIN
                    IF pg_try_advisory_xact_lock(\(foldKey)) THEN
                        WITH folded AS (DELETE FROM catalogTally WHERE id <> 0 RETURNING *)
                        UPDATE catalogTally SET \(figures.map { "\($0.column) = catalogTally.\($0.column) + total.\($0.column)" }.joined(separator: ", "))
                        FROM (SELECT \(figures.map { "COALESCE(SUM(\($0.column)), 0) AS \($0.column)" }.joined(separator: ", ")) FROM folded) AS total
                        WHERE catalogTally.id = 0;
                    END IF;
                END
                $fold$
                """
            statements = [
                fold,
                postgresFunction("note_tally", "\(add([("notes", "CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END")], .postgres));"),
                "CREATE TRIGGER note_tally AFTER INSERT OR DELETE ON note FOR EACH ROW EXECUTE FUNCTION note_tally()",
                postgresFunction("blob_tally", """
                    IF TG_OP = 'INSERT' THEN \(add(blobChange(new: true, old: false), .postgres));
                        ELSIF TG_OP = 'DELETE' THEN \(add(blobChange(new: false, old: true), .postgres));
                        ELSIF \(blobChanged) THEN \(add(blobChange(new: true, old: true), .postgres));
                        END IF;
                    """),
                "CREATE TRIGGER blob_tally AFTER INSERT OR DELETE OR UPDATE OF \(blobColumnsWatched) ON blob FOR EACH ROW EXECUTE FUNCTION blob_tally()",
            ]
        }
        return statements + referrerTriggers(dialect, references, tables: referrers.map(\.table))
    }

    /// The triggers of the records that name blobs (`tables`, of ``referrers``): each counts
    /// itself in its figure and moves the `referenceCount` of every blob its hash columns name.
    private static func referrerTriggers(_ dialect: SQLDialect, _ references: ReferenceColumns, tables: [String]) -> [String] {
        referrers.filter { tables.contains($0.table) }.flatMap { table, figure -> [String] in
            let watched = references.columns(of: table).joined(separator: ", ")
            let changed = referencesChanged(table, references, dialect)
            let (added, removed) = (moveReferences("NEW", "+ 1", table, references), moveReferences("OLD", "- 1", table, references))
            switch dialect {
            case .sqlite:
                return [
                    "CREATE TRIGGER \(table)_tally_insert AFTER INSERT ON \(table) BEGIN \(added); \(add([(figure, "1")], .sqlite)); END",
                    "CREATE TRIGGER \(table)_tally_delete AFTER DELETE ON \(table) BEGIN \(removed); \(add([(figure, "-1")], .sqlite)); END",
                    """
                    CREATE TRIGGER \(table)_tally_update AFTER UPDATE OF \(watched) ON \(table) WHEN \(changed)
                    BEGIN \(removed); \(added); END
                    """,
                ]
            case .postgres:
                let name = "\(table.lowercased())_tally"
                return [
                    postgresFunction(name, """
                        IF TG_OP = 'INSERT' THEN \(added); \(add([(figure, "1")], .postgres));
                            ELSIF TG_OP = 'DELETE' THEN \(removed); \(add([(figure, "-1")], .postgres));
                            ELSIF \(changed) THEN \(removed); \(added);
                            END IF;
                        """),
                    "CREATE TRIGGER \(name) AFTER INSERT OR DELETE OR UPDATE OF \(watched) ON \(table) FOR EACH ROW EXECUTE FUNCTION \(name)()",
                ]
            }
        }
    }

    /// A PostgreSQL trigger function running `body` (statements that may set `delta`), then a
    /// fold when `delta` is a multiple of 1,024.
    private static func postgresFunction(_ name: String, _ body: String) -> String {
        """
        CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $tally$
        DECLARE delta bigint;
        BEGIN
            \(body)
            IF delta % 1024 = 0 THEN PERFORM catalog_tally_fold(); END IF;
            RETURN NULL;
        END
        $tally$
        """
    }
}
