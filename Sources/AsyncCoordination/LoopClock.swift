/// The time a long-running loop reads and waits on: the system's continuous clock, or a clock
/// a test drives by hand, so pacing and back-off are tested without sleeping.
///
/// It measures time as the duration since the clock was wrapped, which is all a loop needs
/// (how long a round took, how long to wait), and hides the clock's `Instant` type so a
/// non-generic service can hold any `Clock<Duration>`.
public struct LoopClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Reads and waits on `clock`.
    public init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleeper = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    /// The system's continuous clock.
    public static var continuous: LoopClock { LoopClock(ContinuousClock()) }

    /// The time since the clock was wrapped.
    public var now: Duration { elapsed() }

    /// Waits `duration` (nothing for zero or less).
    /// - Throws: `CancellationError` when the task is cancelled meanwhile.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        try await sleeper(duration)
    }
}
