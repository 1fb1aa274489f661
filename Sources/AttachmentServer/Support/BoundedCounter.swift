import Synchronization

/// A count that never goes past its limit: ``enter()`` counts one more unless the limit is
/// reached, ``leave()`` counts one less. Lock-free; for connection and upload limits.
final class BoundedCounter: Sendable {
    /// The most that may be counted at once.
    let limit: Int
    private let count = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// How many are counted now.
    var current: Int { count.load(ordering: .relaxed) }

    /// Counts one more and returns `true`, or returns `false` (counting nothing) at the limit.
    func enter() -> Bool {
        var current = count.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = count.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts one less (after an ``enter()`` that returned `true`).
    func leave() { count.subtract(1, ordering: .relaxed) }
}
