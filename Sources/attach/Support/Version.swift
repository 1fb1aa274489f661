import CatalogSQL

/// The version `attach --version` prints: the release number and the commit it was built from.
enum Version {
    /// The release number (``SchemaHistory/release``, which catalogs record); CHANGELOG.md lists
    /// what changed in each.
    static var number: String { SchemaHistory.release }

    /// `0.4.0 (commit 1a2b3c4d5e6f)`.
    static var description: String { "\(number) (commit \(BuildInfo.commit))" }
}
