/// The version `attach --version` prints: the release number and the commit it was built from.
enum Version {
    /// The release number; CHANGELOG.md lists what changed in each.
    static let number = "0.4.0"

    /// `0.4.0 (commit 1a2b3c4d5e6f)`.
    static var description: String { "\(number) (commit \(BuildInfo.commit))" }
}
