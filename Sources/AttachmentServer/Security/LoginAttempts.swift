import Synchronization

/// How often each client address may try a token at `/login`: a few wrong tokens are free,
/// then each wrong one doubles the wait before the next try (1 s, 2 s, 4 s, … up to
/// ``maximumWait``); a right token clears the address's record. A try during the wait is not
/// checked at all: it is answered 429 with `Retry-After`. So guessing from one address gets a
/// handful of tries a minute at first and one every ``maximumWait`` after; since a token off
/// loopback has at least 16 bytes, guessing it this way takes forever.
///
/// The table is bounded: records are forgotten ``forgetAfter`` after an address's last wrong
/// token, and at ``capacity`` addresses the oldest record makes room for a new one.
final class LoginAttempts: Sendable {
    /// One address's wrong tokens since its last right one.
    private struct Record {
        var failures: Int
        var lastFailure: ContinuousClock.Instant
    }

    private struct State {
        var records: [String: Record] = [:]
    }

    /// Wrong tokens an address may send before it has to wait.
    let freeFailures: Int
    /// The longest wait between tries.
    let maximumWait: Duration
    /// How long a record lasts after its last wrong token.
    let forgetAfter: Duration
    /// The most addresses remembered at once.
    let capacity: Int
    /// How often a refused login is logged (a line stands for all the refusals since the last).
    static let logInterval: Duration = .seconds(60)
    /// Lets one line per ``logInterval`` through for wrong tokens.
    let wrongTokenLog = LogThrottle(interval: logInterval)
    /// Lets one line per ``logInterval`` through for tries made too soon (answered 429).
    let tooSoonLog = LogThrottle(interval: logInterval)
    private let state = Mutex(State())

    /// A table with the given rules; the defaults are the server's.
    init(freeFailures: Int = 5, maximumWait: Duration = .seconds(300), forgetAfter: Duration = .seconds(3600), capacity: Int = 10_000) {
        (self.freeFailures, self.maximumWait, self.forgetAfter, self.capacity) = (freeFailures, maximumWait, forgetAfter, capacity)
    }

    /// How long `address` must wait before its next try at `now`; `nil` when it may try now.
    func wait(for address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in
            guard let record = state.records[address] else { return nil }
            let ready = record.lastFailure + wait(after: record.failures)
            return now < ready ? ready - now : nil
        }
    }

    /// Records a wrong token from `address` at `now`.
    func failed(_ address: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if var record = state.records[address] {
                record.failures = now - record.lastFailure < forgetAfter ? record.failures + 1 : 1
                record.lastFailure = now
                state.records[address] = record
                return
            }
            if state.records.count >= capacity { makeRoom(in: &state, now: now) }
            state.records[address] = Record(failures: 1, lastFailure: now)
        }
    }

    /// Records a right token from `address`: its wrong ones are forgotten.
    func succeeded(_ address: String) {
        _ = state.withLock { $0.records.removeValue(forKey: address) }
    }

    /// How many addresses are remembered now.
    var count: Int { state.withLock { $0.records.count } }

    /// The wait after `failures` wrong tokens in a row.
    func wait(after failures: Int) -> Duration {
        guard failures >= freeFailures else { return .zero }
        let doublings = failures - freeFailures
        guard doublings < 30 else { return maximumWait }
        return min(.seconds(1 << doublings), maximumWait)
    }

    /// Forgets the records past ``forgetAfter``, and when none is, the oldest one.
    private func makeRoom(in state: inout State, now: ContinuousClock.Instant) {
        state.records = state.records.filter { now - $0.value.lastFailure < forgetAfter }
        guard state.records.count >= capacity,
              let oldest = state.records.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key else { return }
        state.records[oldest] = nil
    }
}
