/// How long a peer loop waits before its next round, as a small state type the loop feeds with
/// each round's outcome (so the rules are tested without a clock):
/// - after a pull round that moved the cursor, or that the peer held (it answers as soon as it
///   has a change): nothing, the next round starts at once;
/// - after any other completed round: the rest of ``interval``, so a peer that does not hold
///   requests, or that sends the same changes again, is asked no more often than that;
/// - after a failure: a back-off that doubles from ``interval`` up to ``maximumBackoff``, and
///   starts over after the next round that completes.
struct RoundPacing: Sendable, Equatable {
    /// The shortest time between the starts of two rounds that brought nothing.
    let interval: Duration
    /// The longest back-off.
    let maximumBackoff: Duration
    /// How long the peer may hold a request (zero: it is not asked to).
    let wait: Duration
    /// The back-off the last failure earned; ``interval`` when the last round completed.
    private(set) var backoff: Duration
    private var lastCursor: Int64?

    /// Pacing for a loop with these settings.
    init(interval: Duration, maximumBackoff: Duration, wait: Duration = .zero) {
        self.interval = interval
        self.maximumBackoff = maximumBackoff
        self.wait = wait
        backoff = interval
    }

    /// The pause after a pull round that completed in `took`, having read `changes` changes up
    /// to `cursor`.
    mutating func afterPull(took: Duration, changes: Int, cursor: Int64) -> Duration {
        let moved = changes > 0 && cursor > (lastCursor ?? -1)
        let held = wait > .zero && took >= wait / 2
        lastCursor = cursor
        backoff = interval
        return moved || held ? .zero : max(.zero, interval - took)
    }

    /// The pause after a push round that completed: none (the loop waits on the feed itself).
    mutating func afterPush() -> Duration {
        backoff = interval
        return .zero
    }

    /// The pause after a failed round: the back-off, doubled.
    mutating func afterFailure() -> Duration {
        backoff = min(backoff * 2, maximumBackoff)
        return backoff
    }
}
