import Synchronization

/// Hands out a fixed number of render slots, visible requests before prefetches, first come
/// first served within a priority. A waiter that is cancelled leaves the queue at once.
final class RenderScheduler: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var visible: [Waiter] = []
        var prefetch: [Waiter] = []

        mutating func removeWaiter(_ id: UInt64) -> Waiter? {
            if let index = visible.firstIndex(where: { $0.id == id }) { return visible.remove(at: index) }
            if let index = prefetch.firstIndex(where: { $0.id == id }) { return prefetch.remove(at: index) }
            return nil
        }
    }

    private let state: Mutex<State>

    /// A scheduler with `slots` concurrent renders.
    init(slots: Int) {
        state = Mutex(State(available: max(1, slots)))
    }

    /// Waits for a free slot. Pair every successful call with ``release()``.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(id: UInt64, priority: ThumbnailPriority) async throws {
        try Task.checkCancellation()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = state.withLock { state -> Bool in
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    let waiter = Waiter(id: id, continuation: continuation)
                    if priority == .visible { state.visible.append(waiter) } else { state.prefetch.append(waiter) }
                    return false
                }
                if granted {
                    continuation.resume()
                } else if Task.isCancelled {
                    cancel(id: id)
                }
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Returns a slot, waking the next waiter if there is one.
    func release() {
        let next = state.withLock { state -> Waiter? in
            if !state.visible.isEmpty { return state.visible.removeFirst() }
            if !state.prefetch.isEmpty { return state.prefetch.removeFirst() }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }

    /// Moves a queued prefetch to the visible queue (someone is now looking at it).
    func raise(id: UInt64) {
        state.withLock { state in
            guard let index = state.prefetch.firstIndex(where: { $0.id == id }) else { return }
            state.visible.append(state.prefetch.remove(at: index))
        }
    }

    /// How many wait for a slot now.
    var queueDepth: Int { state.withLock { $0.visible.count + $0.prefetch.count } }

    private func cancel(id: UInt64) {
        let removed = state.withLock { $0.removeWaiter(id) }
        removed?.continuation.resume(throwing: CancellationError())
    }
}
