import ArgumentParser
import Foundation

/// `attach serve` reads every option from the environment too: `--max-upload 512` is
/// `ATTACH_MAX_UPLOAD=512`, for a service manager's environment file. An option given on the
/// command line wins, also over the other form of the same setting (`--token-file` on the command
/// line leaves `ATTACH_TOKEN` unread). A repeatable option (`--peer`, `--allowed-host`) takes a comma-separated
/// list. A malformed value is reported with the variable's name.
struct EnvironmentArguments {
    /// An option filled from the environment: which, and from what.
    struct Injected: Equatable {
        let option: String
        let variable: String
        let value: String
    }

    /// The arguments to parse: `arguments` plus, for `serve`, every option set only in `environment`.
    let arguments: [String]
    /// What came from the environment.
    let injected: [Injected]

    /// The variable of `--option-name`: `ATTACH_OPTION_NAME`.
    static func variable(for option: String) -> String {
        "ATTACH_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
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
            let variable = Self.variable(for: option)
            guard let value = environment[variable], !value.isEmpty else { continue }
            let values = ServeCommand.repeatableOptions.contains(option)
                ? value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : [value]
            for value in values {
                // One `--option=value` word, so a value starting with "-" is not taken for an option.
                expanded.append(flag + "=" + value)
                injected.append(Injected(option: option, variable: variable, value: value))
            }
        }
        self.arguments = expanded
        self.injected = injected
    }

    /// A parse error that is about an option taken from the environment, re-worded to name the
    /// variable; `nil` for any other error.
    func environmentError(for error: any Error) -> ValidationError? {
        let message = AttachCommand.message(for: error)
        guard let culprit = injected.first(where: { message.contains("'--\($0.option)") || message.contains("--\($0.option) ") }) else {
            return nil
        }
        // A secret is named, never shown: the message goes to a terminal or a service's log.
        let shown = culprit.option.hasSuffix("token") ? "(a secret, not shown)" : culprit.value
        return ValidationError("\(culprit.variable)=\(shown) in the environment: \(message)")
    }
}
