import Foundation

/// The `vips` command-line tool, which tests use to make and measure images without the code
/// under test.
public enum VipsTool {
    /// Runs `vips` with `arguments`; throws with its error text when it fails.
    public static func run(_ arguments: [String]) async throws {
        let outcome = try await ChildProcess.run("/usr/bin/vips", arguments)
        guard outcome.exitCode == 0 else { throw Failed(message: "vips \(arguments.joined(separator: " ")): \(outcome.stderr)") }
    }

    /// The number `vips` prints for `arguments` (an `avg`, a `max`).
    public static func number(_ arguments: [String]) async throws -> Double {
        let outcome = try await ChildProcess.run("/usr/bin/vips", arguments)
        guard outcome.exitCode == 0, let value = Double(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failed(message: "vips \(arguments.joined(separator: " ")): \(outcome.stderr)")
        }
        return value
    }

    /// `vips` failed; its command and error text.
    public struct Failed: Error { public let message: String }
}
