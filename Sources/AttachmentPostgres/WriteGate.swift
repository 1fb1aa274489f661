import Synchronization

/// A first-in, first-out async lock: one holder at a time, waiters suspended (not blocking a
/// thread). It keeps a process's writers from each occupying a transaction thread and a
/// connection while they wait for the catalog's advisory lock. Waiting is not cancellable: a
/// cancelled task waits its turn, as GRDB's writer queue does.
final class WriteGate: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every earlier caller's body has finished.
    func withGate<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enter = state.withLock { state in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if enter { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
