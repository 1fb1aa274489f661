/// Which release shaped a catalog's schema, and the refusal to open one a newer release shaped.
///
/// Every catalog (SQLite or PostgreSQL) records the ids of the migrations applied to it, and in
/// `storeSetting` the release that applied the last of them. A catalog with an id this code does
/// not know was migrated by a newer release: this code may not read it correctly and must not
/// write it, so it is refused before anything is changed.
public enum SchemaHistory {
    /// This code's release: what `attach --version` prints and what a catalog records when this
    /// code migrates it. CHANGELOG.md lists what changed in each.
    public static let release = "0.5.0"

    /// The `storeSetting` key of the release that last migrated the catalog.
    public static let releaseSettingKey = "schemaRelease"

    /// Refuses a catalog that has applied migrations not in `known`.
    /// - Parameters:
    ///   - applied: the ids the catalog records as applied.
    ///   - known: this code's migration ids.
    ///   - recordedRelease: the release the catalog says last migrated it, if it says.
    ///   - location: the catalog, as a user would name it (a path, or a PostgreSQL host and database).
    /// - Throws: ``SQLDatabaseError`` of kind `.newerSchema` naming both releases.
    public static func refuseNewer(applied: [String], known: [String], recordedRelease: String?, location: String) throws(SQLDatabaseError) {
        let knownSet = Set(known)
        let unknown = applied.filter { !knownSet.contains($0) }
        guard !unknown.isEmpty else { return }
        let writer = recordedRelease.map { "attach \($0)" } ?? "a newer release of attach"
        throw SQLDatabaseError(.newerSchema,
            "the catalog \(location) was migrated by \(writer), and this is attach \(release): it has schema steps "
                + "this release does not know (\(unknown.map { "\"\($0)\"" }.joined(separator: ", "))). "
                + "Install \(recordedRelease.map { "attach \($0)" } ?? "the newer release") or later to open it; nothing was changed.")
    }
}
