@testable import attach
import ArgumentParser
import Foundation
import Testing
import TestSupport

/// The configuration file (`--config FILE`, `ATTACH_CONFIG`, `/etc/attach/attach.conf`): every
/// `attach serve` option by its long name, below the environment and the command line, and the
/// store settings of every admin command.
@Suite("Configuration file", .timeLimit(.minutes(3)))
struct ConfigurationFileTests {
    /// Writes `text` to a new file (mode `mode`) and returns its path.
    static func file(_ text: String, mode: Int = 0o600) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory("config")
        let path = directory.appending("attach.conf").path(percentEncoded: false)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode_t(mode))
        return (directory, path)
    }

    @Test("every attach serve option can be set in the file, by its long name, and comes from there")
    func everyServeOptionHasAFileKey() async throws {
        let repeatable = ServeCommand.repeatableOptions
        let lines = ServeCommand.environmentOptions.map { option in
            repeatable.contains(option) ? "\(option):\n  - first-\(option)\n  - second-\(option)" : "\(option): value-of-\(option)"
        }
        let (directory, path) = try Self.file(lines.joined(separator: "\n"))
        _ = directory
        let settings = try await Settings.load(arguments: ["serve", "--config", path], environment: [:])
        let expanded = EnvironmentArguments(["serve", "--config", path], settings: settings)
        for option in ServeCommand.environmentOptions {
            let expected = repeatable.contains(option) ? ["first-\(option)", "second-\(option)"] : ["value-of-\(option)"]
            let injected = expanded.injected.filter { $0.option == option }
            #expect(injected.map(\.value) == expected, "\(option)")
            #expect(injected.allSatisfy { $0.file == path }, "\(option) is said to come from the file")
        }
    }

    @Test("the command line wins over the environment, which wins over the file")
    func precedence() async throws {
        let (directory, path) = try Self.file("port: 9001\nhost: 10.0.0.1\nlog-level: debug\npeer: [http://file:1]\n")
        _ = directory
        let environment = ["ATTACH_HOST": "10.0.0.2", "ATTACH_PEER": "http://env:1,http://env:2", "ATTACH_LOG_LEVEL": ""]
        let arguments = ["serve", "--port", "9003", "--config=\(path)"]
        let settings = try await Settings.load(arguments: arguments, environment: environment)
        let serve = try #require(try AttachCommand.parseAsRoot(EnvironmentArguments(arguments, settings: settings).arguments) as? ServeCommand)
        #expect(serve.port == 9003, "the flag")
        #expect(serve.host == "10.0.0.2", "the environment over the file")
        #expect(serve.peers == ["http://env:1", "http://env:2"], "a list from the environment replaces the file's")
        #expect(serve.logLevel == "debug", "an empty variable leaves the file's value")
    }

    @Test("a file is refused, naming it, for an unknown key, a nested value, a list for one value, bad YAML or a missing path",
          arguments: [
              ("max-uplaod: 512\n", "unknown setting max-uplaod"),
              ("store:\n  path: /srv\n", "store takes one value"),
              ("port: [1, 2]\n", "port takes one value"),
              ("peer: [[http://a:1]]\n", "peer takes a value or a list of values"),
              ("port: 1\n  host: : x\n", "is not YAML"),
              ("- port\n- 1\n", "must be a mapping"),
          ])
    func malformedFilesAreRefused(text: String, reason: String) async throws {
        let (directory, path) = try Self.file(text)
        _ = directory
        let error = await #expect(throws: SettingsError.self) { try await Settings.load(arguments: ["gc", "--config", path], environment: [:]) }
        #expect(error?.description.contains(path) == true && error?.description.contains(reason) == true, "\(error?.description ?? "")")
        let missing = await #expect(throws: SettingsError.self) {
            try await Settings.load(arguments: [], environment: ["ATTACH_CONFIG": path + ".missing"])
        }
        #expect(missing?.description.contains(path + ".missing") == true)
    }

    @Test("a token in a file others may read is refused; the same file readable by its owner alone is used")
    func secretsNeedAPrivateFile() async throws {
        let (directory, path) = try Self.file("token: a-secret-of-sixteen-bytes\n", mode: 0o644)
        _ = directory
        let error = await #expect(throws: SettingsError.self) { try await Settings.load(arguments: ["serve", "--config", path], environment: [:]) }
        #expect(error?.description.contains("chmod 600") == true)
        #expect(error?.description.contains("a-secret") == false, "the secret is never shown")
        chmod(path, 0o600)
        let settings = try await Settings.load(arguments: ["serve", "--config", path], environment: [:])
        #expect(settings.value("token") == "a-secret-of-sixteen-bytes")
    }

    @Test("a catalog URL with a password counts as a secret; one without a password does not")
    func catalogPasswordIsASecret() async throws {
        let (directory, path) = try Self.file("catalog: postgres://attach:hunter2@db.internal/attach\n", mode: 0o640)
        _ = directory
        let error = await #expect(throws: SettingsError.self) { try await Settings.load(arguments: ["gc", "--config", path], environment: [:]) }
        #expect(error?.description.contains("password") == true && error?.description.contains("hunter2") == false)
        try "catalog: postgres://attach@db.internal/attach\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        let settings = try await Settings.load(arguments: ["gc", "--config", path], environment: [:])
        #expect(settings.value("catalog") == "postgres://attach@db.internal/attach")
    }

    @Test("a repeatable option written as one value in the file is a list of one")
    func singleValueForRepeatableOption() async throws {
        let (directory, path) = try Self.file("peer: http://single:1\n")
        _ = directory
        let settings = try await Settings.load(arguments: ["serve", "--config", path], environment: [:])
        #expect(EnvironmentArguments(["serve"], settings: settings).arguments == ["serve", "--peer=http://single:1"])
    }


    func valueErrorNamesTheFile() async throws {
        let (directory, path) = try Self.file("port: eighty\n")
        _ = directory
        let result = try await Attach.run(["serve", "--config", path], store: nil)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("port: eighty in \(path)"), "\(result.stderr)")
    }

    @Test("attach gc and attach stats open the store the configuration file names, as the service does")
    func adminCommandsReadTheFile() async throws {
        let directory = try TemporaryDirectory("config-admin")
        let store = directory.appending("service-store")
        #expect(try await Attach.run(["init"], store: store).exitCode == 0)
        let note = try await Attach.run(["note", "add", "From the service"], store: store)
        #expect(note.exitCode == 0)
        let path = directory.appending("attach.conf").path(percentEncoded: false)
        try "store: \(store.path(percentEncoded: false))\n".write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["gc", "--json"], ["stats", "--json"]] {
            let result = try await ChildProcess.run(Attach.binary, arguments, environment: ["ATTACH_CONFIG": path])
            #expect(result.exitCode == 0, "\(arguments): \(result.stderr)")
        }
        let stats = try await ChildProcess.run(Attach.binary, ["stats", "--json", "--config", path])
        let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(object?["notes"] as? Int == 1, "the service's store, with its one note: \(stats.stdout)")
    }
}
