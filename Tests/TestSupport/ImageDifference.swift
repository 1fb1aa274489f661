import Foundation

/// How far apart two images of one size are, measured by the `vips` tool (never by the code
/// under test): the mean and the largest absolute difference of their samples, in levels.
public enum ImageDifference {
    /// The difference between the image files `first` and `second`; scratch files go in `directory`.
    public static func between(_ first: String, _ second: String, in directory: TemporaryDirectory) async throws -> (mean: Double, max: Double) {
        let delta = directory.appending("difference-\(UUID().uuidString).v").path(percentEncoded: false)
        let absolute = directory.appending("absolute-\(UUID().uuidString).v").path(percentEncoded: false)
        try await VipsTool.run(["subtract", first, second, delta])
        try await VipsTool.run(["abs", delta, absolute])
        return (try await VipsTool.number(["avg", absolute]), try await VipsTool.number(["max", absolute]))
    }

    /// The difference between two encoded images, written into `directory` first.
    public static func between(_ first: [UInt8], _ second: [UInt8], in directory: TemporaryDirectory) async throws -> (mean: Double, max: Double) {
        let one = directory.appending("first-\(UUID().uuidString)").path(percentEncoded: false)
        let other = directory.appending("second-\(UUID().uuidString)").path(percentEncoded: false)
        try Data(first).write(to: URL(filePath: one))
        try Data(second).write(to: URL(filePath: other))
        return try await between(one, other, in: directory)
    }
}
