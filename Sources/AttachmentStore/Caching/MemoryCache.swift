import Synchronization

/// A least-recently-used cache bounded by the total cost (bytes) of its values.
///
/// Thread-safe: all state sits behind one mutex and every operation but
/// ``removeAll(where:)`` is O(1). A value larger than the whole budget is not cached. The one
/// LRU of the package: thumbnails, the image store and the server's thumbnail answers use it.
package final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var cost: Int
        var newer: Key?
        var older: Key?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var newest: Key?
        var oldest: Key?
        var totalCost = 0

        mutating func unlink(_ key: Key) {
            guard let entry = entries[key] else { return }
            if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
            if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        }

        mutating func pushNewest(_ key: Key) {
            entries[key]?.older = newest
            entries[key]?.newer = nil
            if let previous = newest { entries[previous]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
        }

        mutating func remove(_ key: Key) -> Entry? {
            unlink(key)
            guard let entry = entries.removeValue(forKey: key) else { return nil }
            totalCost -= entry.cost
            return entry
        }
    }

    /// The most the values may cost together.
    package let byteLimit: Int
    private let state = Mutex(State())

    /// Creates an empty cache holding at most `byteLimit` bytes of values.
    package init(byteLimit: Int) { self.byteLimit = byteLimit }

    /// The value for `key`, marking it most recently used (a repeat of the newest key, the
    /// common case of a hot entry, costs one look-up).
    package func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if state.newest != key {
                state.unlink(key)
                state.pushNewest(key)
            }
            return entry.value
        }
    }

    /// Stores `value` at `cost` bytes, evicting the least recently used values beyond the budget.
    package func setValue(_ value: Value, forKey key: Key, cost: Int) {
        state.withLock { state in
            _ = state.remove(key)
            guard cost <= byteLimit else { return }
            state.entries[key] = Entry(value: value, cost: cost)
            state.pushNewest(key)
            state.totalCost += cost
            while state.totalCost > byteLimit, let oldest = state.oldest {
                _ = state.remove(oldest)
            }
        }
    }

    /// Drops the value for `key`, if any.
    package func removeValue(forKey key: Key) {
        state.withLock { state in _ = state.remove(key) }
    }

    /// Drops every value.
    package func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Drops every value whose key passes `shouldRemove`. O(n).
    package func removeAll(where shouldRemove: (Key) -> Bool) {
        state.withLock { state in
            for key in state.entries.keys where shouldRemove(key) { _ = state.remove(key) }
        }
    }

    /// The number of values and their total cost.
    package var usage: (count: Int, cost: Int) {
        state.withLock { ($0.entries.count, $0.totalCost) }
    }
}
