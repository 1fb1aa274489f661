import Synchronization

/// A fixed number of slots, handed out first come, first served, urgent waiters before the
/// others. Waiting suspends the task; it never blocks a thread. The one gate for render slots
/// (a slot per core, visible thumbnails first) and a catalog's writers (one slot, in order).
///
/// Pair every ``acquire(id:urgent:)`` or ``acquireUncancellable()`` with ``release()``, or use
/// ``withSlot(_:)``.
package final class AsyncGate: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var urgent: [Waiter] = []
        var others: [Waiter] = []
        /// Ids for waiters that gave none, counting down from the top so they never meet the
        /// callers' own.
        var nextAnonymousID = UInt64.max

        mutating func removeWaiter(_ id: UInt64) -> Waiter? {
            if let index = urgent.firstIndex(where: { $0.id == id }) { return urgent.remove(at: index) }
            if let index = others.firstIndex(where: { $0.id == id }) { return others.remove(at: index) }
            return nil
        }
    }

    private let state: Mutex<State>

    /// A gate with `slots` slots (at least one).
    package init(slots: Int) {
        state = Mutex(State(available: max(1, slots)))
    }

    /// Waits for a slot as waiter `id` (a name ``raise(id:)`` can find it by).
    /// - Throws: `CancellationError` when the task is cancelled while waiting; it leaves the
    ///   queue at once and holds no slot.
    package func acquire(id: UInt64, urgent: Bool = false) async throws {
        try Task.checkCancellation()
        try await withTaskCancellationHandler {
            try await wait(id: id, urgent: urgent, cancellable: true)
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Waits for a slot whatever happens to the task: a cancelled task still waits its turn (as
    /// a database's writer queue does), so a write it started is never cut off half-way.
    package func acquireUncancellable() async {
        let id = state.withLock { state -> UInt64 in
            state.nextAnonymousID -= 1
            return state.nextAnonymousID
        }
        // Nothing cancels this waiter, so the wait cannot throw.
        try? await wait(id: id, urgent: false, cancellable: false)
    }

    /// Returns a slot, waking the next waiter (urgent ones first) if there is one.
    package func release() {
        let next = state.withLock { state -> Waiter? in
            if !state.urgent.isEmpty { return state.urgent.removeFirst() }
            if !state.others.isEmpty { return state.others.removeFirst() }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }

    /// Runs `body` holding a slot taken with ``acquireUncancellable()``.
    package func withSlot<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquireUncancellable()
        defer { release() }
        return try await body()
    }

    /// Moves waiter `id` to the urgent queue (someone now needs it soon); nothing when it is
    /// not waiting.
    package func raise(id: UInt64) {
        state.withLock { state in
            guard let index = state.others.firstIndex(where: { $0.id == id }) else { return }
            state.urgent.append(state.others.remove(at: index))
        }
    }

    /// How many wait for a slot now.
    package var queueDepth: Int { state.withLock { $0.urgent.count + $0.others.count } }

    /// Takes a free slot or queues waiter `id`. A cancellable waiter queued after its task was
    /// cancelled (the cancellation handler found nothing to remove) leaves at once.
    private func wait(id: UInt64, urgent: Bool, cancellable: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let granted = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                let waiter = Waiter(id: id, continuation: continuation)
                if urgent { state.urgent.append(waiter) } else { state.others.append(waiter) }
                return false
            }
            if granted {
                continuation.resume()
            } else if cancellable && Task.isCancelled {
                cancel(id: id)
            }
        }
    }

    private func cancel(id: UInt64) {
        let removed = state.withLock { $0.removeWaiter(id) }
        removed?.continuation.resume(throwing: CancellationError())
    }
}
