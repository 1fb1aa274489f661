/// How long the scrub waits between its steps, as a small state type (so the rate is tested
/// without a clock): after a step that re-hashed `n` bytes, what keeps the average at
/// ``bytesPerSecond``; after a pass, what keeps passes at least ``minimumPassInterval`` apart;
/// after a failed step, ``retryAfterFailure``.
struct ScrubPacing: Sendable, Equatable {
    /// The average rate the scrub keeps to.
    let bytesPerSecond: Int64
    /// The shortest time between the starts of two passes.
    let minimumPassInterval: Duration
    /// The wait after a step that failed.
    var retryAfterFailure: Duration = .seconds(5)

    /// The pause after a step that re-hashed `bytes` in `took`: the rest of the time those
    /// bytes are owed at the rate (none when the step already took that long).
    func pause(afterStepOf bytes: Int64, took: Duration) -> Duration {
        guard bytesPerSecond > 0 else { return .zero }
        return max(.zero, .seconds(Double(bytes) / Double(bytesPerSecond)) - took)
    }

    /// The pause after a pass that started `sinceStart` ago ended.
    func pause(afterPassThatStarted sinceStart: Duration) -> Duration {
        max(.zero, minimumPassInterval - sinceStart)
    }
}
