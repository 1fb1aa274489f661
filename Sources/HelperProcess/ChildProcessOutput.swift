/// What a helper program that exited with status 0 left behind.
public struct ChildProcessOutput: Sendable {
    /// Everything it wrote to its standard output (at most the limit's bytes).
    public var standardOutput: [UInt8]
    /// The end of what it wrote to its standard error (at most ``ChildProcessError/maximumErrorText``
    /// characters), for the log.
    public var standardError: String
    /// Whether it ran without a network.
    public var networkIsolated: Bool
}
