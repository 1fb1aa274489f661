/// Why the configuration file cannot be used. Each message names the file and what to change;
/// `attach` exits with 1 before any command runs.
enum SettingsError: Error, CustomStringConvertible {
    /// `--config` was the last argument.
    case missingFileArgument
    /// The file cannot be read (missing, a folder, no permission).
    case unreadable(file: String, cause: any Error)
    /// The file is not YAML.
    case notYAML(file: String, cause: any Error)
    /// The file's top level is not a mapping of keys to values.
    case notAMapping(file: String)
    /// A key that is no option of `attach serve`.
    case unknownKey(file: String, key: String)
    /// A nested value, or a list for an option that takes one value.
    case wrongShape(file: String, key: String, takesList: Bool)
    /// A secret in a file others may read.
    case exposedSecret(file: String, key: String)
    /// swift-configuration could not read the file.
    case unusable(file: String, cause: any Error)

    var description: String {
        switch self {
        case .missingFileArgument:
            "--config needs a file"
        case .unreadable(let file, let cause):
            "cannot read configuration file \(file): \(cause)"
        case .notYAML(let file, let cause):
            "configuration file \(file) is not YAML: \(cause)"
        case .notAMapping(let file):
            "configuration file \(file) must be a mapping of option: value lines"
        case .unknownKey(let file, let key):
            "configuration file \(file): unknown setting \(key) (the settings are attach serve's options, by their long names: "
                + "max-upload, token-file, …)"
        case .wrongShape(let file, let key, let takesList):
            "configuration file \(file): \(key) takes " + (takesList ? "a value or a list of values" : "one value")
        case .exposedSecret(let file, let key) where key == "catalog":
            "configuration file \(file) holds a catalog URL with a password but others may read it: chmod 600 it, or put the URL "
                + "in a file named by ATTACH_CATALOG_FILE"
        case .exposedSecret(let file, let key):
            "configuration file \(file) holds \(key) but others may read it: chmod 600 it, or name a file with \(key)-file"
        case .unusable(let file, let cause):
            "configuration file \(file): \(cause)"
        }
    }
}
