import Foundation

/// How far apart two images of one size are, measured by the `vips` tool (never by the code
/// under test): the mean and the largest absolute difference of their samples, in levels.
public enum ImageDifference {
    /// The difference between the image files `first` and `second`; scratch files go in `directory`.
    public static func between(_ first: String, _ second: String, in directory: TemporaryDirectory) async throws -> (mean: Double, max: Double) {
        let delta = directory.appending("difference-\(UUID().uuidString).v").path(percentEncoded: false)
        let absolute = directory.appending("absolute-\(UUID().uuidString).v").path(percentEncoded: false)
        try await vips(["subtract", first, second, delta])
        try await vips(["abs", delta, absolute])
        return (try await number(["avg", absolute]), try await number(["max", absolute]))
    }

    /// The difference between two encoded images, written into `directory` first.
    public static func between(_ first: [UInt8], _ second: [UInt8], in directory: TemporaryDirectory) async throws -> (mean: Double, max: Double) {
        let one = directory.appending("first-\(UUID().uuidString)").path(percentEncoded: false)
        let other = directory.appending("second-\(UUID().uuidString)").path(percentEncoded: false)
        try Data(first).write(to: URL(filePath: one))
        try Data(second).write(to: URL(filePath: other))
        return try await between(one, other, in: directory)
    }

    /// Runs `vips` with `arguments`; throws with its error text when it fails.
    public static func vips(_ arguments: [String]) async throws {
        let outcome = try await ChildProcess.run("/usr/bin/vips", arguments)
        guard outcome.exitCode == 0 else { throw VipsFailed(message: "vips \(arguments.joined(separator: " ")): \(outcome.stderr)") }
    }

    /// The number `vips` prints for `arguments` (an `avg`, a `max`).
    static func number(_ arguments: [String]) async throws -> Double {
        let outcome = try await ChildProcess.run("/usr/bin/vips", arguments)
        guard outcome.exitCode == 0, let value = Double(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw VipsFailed(message: "vips \(arguments.joined(separator: " ")): \(outcome.stderr)")
        }
        return value
    }

    struct VipsFailed: Error { let message: String }
}
