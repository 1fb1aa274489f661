/// The catalog's migrations from `v6` on, written once for both catalogs: each is SQL that
/// SQLite and PostgreSQL both run, with any difference between them decided here, by dialect,
/// and nowhere else. The SQLite schema (`CatalogSchema`) and the PostgreSQL one
/// (`PostgresCatalogSchema`) append these, in order, after their own `v1`…`v5`.
///
/// Append-only, like every migration: a released one is never edited.
public enum SharedCatalogMigrations {
    /// One migration: its id (the same in both catalogs) and its statements for a dialect, each
    /// sent on its own.
    public struct Migration: Sendable {
        /// The id recorded in the catalog once applied.
        public let id: String
        /// The statements for `dialect`.
        public let statements: @Sendable (SQLDialect) -> [String]
    }

    /// Every shared migration, in order.
    public static let all: [Migration] = [
        Migration(id: "v6: notes listed by last change without sorting") { _ in
            // `ORDER BY updatedAt DESC, id` (every page of notes) reads this index in order, so a
            // page costs its own rows, not the whole table's sort.
            ["CREATE INDEX note_on_updatedAt_id ON note(updatedAt DESC, id)"]
        },
    ]
}
