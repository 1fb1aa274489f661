import Synchronization

/// Lets a repeated event reach the log at most once per interval, so that a flood (refused
/// connections, wrong login tokens) costs a line per interval instead of a line per event.
///
/// The first event writes a line at once; the events of the next `interval` are only counted,
/// and the first event after it writes a line standing for all of them.
final class LogThrottle: Sendable {
    private struct State {
        var quietUntil: ContinuousClock.Instant?
        var heldBack = 0
    }

    private let interval: Duration
    private let state = Mutex(State())

    /// A throttle writing at most one line per `interval`.
    init(interval: Duration) { self.interval = interval }

    /// Counts one event at `now`. Returns how many events the line now due stands for (this one
    /// and those held back since the last line), or `nil` when no line is due.
    func record(now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            if let quietUntil = state.quietUntil, now < quietUntil {
                state.heldBack += 1
                return nil
            }
            let events = state.heldBack + 1
            state.heldBack = 0
            state.quietUntil = now + interval
            return events
        }
    }
}
