import ArgumentParser
import Foundation

/// `attach serve` reads every option from the environment and the configuration file too
/// (``Settings``): `--max-upload 512` is `ATTACH_MAX_UPLOAD=512`, or `max-upload: 512` in the
/// file. An option given on the command line wins, also over the other form of the same setting
/// (`--token-file` on the command line leaves `ATTACH_TOKEN` unread); the environment wins over
/// the file. A repeatable option (`--peer`, `--allowed-host`) takes a comma-separated list in
/// the environment, a YAML list in the file. A malformed value is reported with where it came from.
struct EnvironmentArguments {
    /// An option filled from the environment or the file: which, and from what.
    struct Injected: Equatable {
        let option: String
        /// The environment variable of the option (also when the value came from the file).
        let variable: String
        let value: String
        /// The configuration file the value came from; `nil` for the environment.
        var file: String? = nil

        /// `ATTACH_PORT=9000 in the environment` or `port: 9000 in /etc/attach/attach.conf`,
        /// a secret's value not shown.
        var origin: String {
            // A secret is named, never shown: the message goes to a terminal or a service's log.
            let shown = option.hasSuffix("token") ? "(a secret, not shown)" : value
            return file.map { "\(option): \(shown) in \($0)" } ?? "\(variable)=\(shown) in the environment"
        }
    }

    /// The arguments to parse: `arguments` plus, for `serve`, every option set only in the
    /// environment or the file.
    let arguments: [String]
    /// What came from the environment or the file.
    let injected: [Injected]

    /// The variable of `--option-name`: `ATTACH_OPTION_NAME`.
    static func variable(for option: String) -> String {
        "ATTACH_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `arguments` completed from `environment` alone (no configuration file).
    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(arguments, settings: Settings(environment: environment))
    }

    /// `arguments` completed from `settings` (the environment, then the configuration file).
    init(_ arguments: [String], settings: Settings) {
        guard arguments.first == "serve", !arguments.contains("--help"), !arguments.contains("-h") else {
            self.arguments = arguments
            injected = []
            return
        }
        var expanded = arguments
        var injected: [Injected] = []
        for option in ServeCommand.environmentOptions {
            let flag = "--" + option
            let given = { (name: String) in arguments.contains { $0 == "--" + name || $0.hasPrefix("--" + name + "=") } }
            guard !given(option), !(ServeCommand.alternativeOptions[option].map(given) ?? false) else { continue }
            let values = ServeCommand.repeatableOptions.contains(option) ? settings.values(option) : settings.value(option).map { [$0] } ?? []
            let file = settings.file(of: option)
            for value in values {
                // One `--option=value` word, so a value starting with "-" is not taken for an option.
                expanded.append(flag + "=" + value)
                injected.append(Injected(option: option, variable: Self.variable(for: option), value: value, file: file))
            }
        }
        self.arguments = expanded
        self.injected = injected
    }

    /// A parse error that is about an option taken from the environment or the file, re-worded
    /// to name where it came from; `nil` for any other error.
    func environmentError(for error: any Error) -> ValidationError? {
        let message = AttachCommand.message(for: error)
        guard let culprit = injected.first(where: { message.contains("'--\($0.option)") || message.contains("--\($0.option) ") }) else {
            return nil
        }
        return ValidationError("\(culprit.origin): \(message)")
    }
}
