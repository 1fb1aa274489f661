import Configuration
import Foundation
import Synchronization
import SystemPackage
import Yams

/// Where `attach` finds a setting not given on the command line: the environment first
/// (`ATTACH_<OPTION>`, `--max-upload` is `ATTACH_MAX_UPLOAD`), then the configuration file
/// (`max-upload: 512`), read through swift-configuration's providers. The command line wins
/// over both; ``EnvironmentArguments`` and ``StoreOptions`` apply the order.
///
/// The file is `--config FILE`, else `$ATTACH_CONFIG`, else `/etc/attach/attach.conf` when it
/// exists. It is YAML: one key per option, by the option's long name; a list (`peer`,
/// `allowed-host`, …) as a YAML sequence. An unknown key, a nested value or a secret in a file
/// others may read is refused, naming the file.
struct Settings: Sendable {
    /// The file read when neither `--config` nor `ATTACH_CONFIG` names one.
    static let defaultFile = "/etc/attach/attach.conf"

    /// Every key the file may hold: `attach serve`'s options (which include the store's).
    static var knownKeys: Set<String> { Set(ServeCommand.environmentOptions) }
    /// Keys whose value is a secret: refused in a file anyone but its owner may read.
    static let secretKeys: Set<String> = ["token", "sync-token", "push-token", "peer-token"]

    private let reader: ConfigReader
    private let environment: [String: String]
    /// The configuration file read, if any.
    let file: String?

    /// Settings from `environment` alone (tests, and a machine without a configuration file).
    init(environment: [String: String]) {
        self.environment = environment.filter { !$0.value.isEmpty }
        file = nil
        reader = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: self.environment))
    }

    private init(environment: [String: String], file: String, fileProvider: FileProvider<YAMLSnapshot>) {
        // An empty variable is as good as unset: the file's value then applies.
        let environment = environment.filter { !$0.value.isEmpty }
        self.environment = environment
        self.file = file
        // The file's keys are top-level (`max-upload`); the environment's carry the ATTACH
        // prefix: one reader asks both for `attach.max-upload`, the environment first.
        let unprefixed = fileProvider.mapKeys { key in AbsoluteConfigKey(Array(key.components.dropFirst()), context: key.context) }
        reader = ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: environment), unprefixed])
    }

    /// Reads the configuration file `arguments` or `environment` name (or the default one when it
    /// exists).
    /// - Throws: ``SettingsError`` naming the file when it is missing (named explicitly),
    ///   unreadable, not YAML, holds an unknown key or a nested value, or holds a secret while
    ///   others may read it.
    static func load(arguments: [String], environment: [String: String]) async throws -> Settings {
        let named = try configFile(in: arguments) ?? environment["ATTACH_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = named ?? defaultFile
        guard named != nil || FileManager.default.fileExists(atPath: path) else { return Settings(environment: environment) }
        try check(path)
        do {
            let provider = try await FileProvider<YAMLSnapshot>(filePath: FilePath(path))
            return Settings(environment: environment, file: path, fileProvider: provider)
        } catch {
            throw SettingsError.unusable(file: path, cause: error)
        }
    }

    /// The value of `option` (its long name), from the environment or the file; `nil` when neither
    /// sets it (an empty environment variable counts as unset).
    func value(_ option: String) -> String? {
        guard let value = reader.string(forKey: Self.key(option), isSecret: Self.secretKeys.contains(option)) else { return nil }
        return value.isEmpty ? nil : value
    }

    /// The values of a repeatable `option`: a comma-separated list in the environment, a YAML
    /// sequence (or one value) in the file.
    func values(_ option: String) -> [String] {
        let key = Self.key(option)
        let list = reader.stringArray(forKey: key) ?? reader.string(forKey: key).map { [$0] } ?? []
        return list.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The configuration file `option`'s value comes from; `nil` when it comes from the
    /// environment (which wins) or nowhere.
    func file(of option: String) -> String? {
        let variable = EnvironmentArguments.variable(for: option)
        return environment.keys.contains { $0.uppercased() == variable } ? nil : file
    }

    private static func key(_ option: String) -> ConfigKey { ConfigKey(["attach", option]) }

    /// `--config FILE` or `--config=FILE`, wherever it is among `arguments`.
    private static func configFile(in arguments: [String]) throws -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
            if argument == "--config" {
                guard index + 1 < arguments.count else { throw SettingsError.missingFileArgument }
                return arguments[index + 1]
            }
        }
        return nil
    }

    /// Refuses a file whose keys are not options, whose values are nested, or that holds a secret
    /// others may read. Blocks (a small local file, read before anything runs).
    private static func check(_ path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SettingsError.unreadable(file: path, cause: error)
        }
        let document: Any?
        do {
            document = try Yams.load(yaml: text)
        } catch {
            throw SettingsError.notYAML(file: path, cause: error)
        }
        guard let document else { return }
        guard let mapping = document as? [String: Any] else {
            throw SettingsError.notAMapping(file: path)
        }
        for (key, value) in mapping.sorted(by: { $0.key < $1.key }) {
            guard knownKeys.contains(key) else {
                throw SettingsError.unknownKey(file: path, key: key)
            }
            let scalars = (value as? [Any]) ?? [value]
            guard scalars.allSatisfy({ !($0 is [Any]) && !($0 is [String: Any]) }),
                  value is [Any] ? ServeCommand.repeatableOptions.contains(key) : true
            else {
                throw SettingsError.wrongShape(file: path, key: key, takesList: ServeCommand.repeatableOptions.contains(key))
            }
        }
        // A PostgreSQL URL with a password in it is a secret too (better: catalog in ATTACH_CATALOG_FILE).
        let catalogHasPassword = (mapping["catalog"] as? String).flatMap { URLComponents(string: $0)?.password }.map { !$0.isEmpty } ?? false
        if let secret = mapping.keys.sorted().first(where: secretKeys.contains) ?? (catalogHasPassword ? "catalog" : nil) {
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & 0o044 != 0 {
                throw SettingsError.exposedSecret(file: path, key: secret)
            }
        }
    }
}

/// The settings of this run of `attach`, loaded once by ``AttachCommand/main()`` before any
/// command runs; what commands read for an option not on their command line.
enum ProcessSettings {
    private static let loaded = Mutex<Settings?>(nil)

    /// The settings loaded at start (the environment alone until then: in tests that run commands
    /// in-process).
    static var current: Settings {
        loaded.withLock { $0 } ?? Settings(environment: ProcessInfo.processInfo.environment)
    }

    /// Keeps `settings` for the rest of the run.
    static func use(_ settings: Settings) { loaded.withLock { $0 = settings } }
}
