import Synchronization

/// A clock that moves only when a test says so: code sleeping on it waits until ``advance(by:)``
/// passes its deadline, so a test drives minutes of back-off in no time, and can ask what the
/// code is waiting for (``sleepers(atLeast:)``) instead of polling.
public final class ManualClock: Clock, Sendable {
    /// A point of the clock's time: how far it was advanced.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock started.
        public let offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<[Duration], Never>)] = []
    }

    private let state = Mutex(State())

    /// A clock at zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    Self.notifyWatchers(&state)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration`, waking every sleeper whose deadline it passes.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits until at least `count` tasks sleep on the clock; returns how long each has left,
    /// shortest first.
    public func sleepers(atLeast count: Int) async -> [Duration] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [Duration]? in
                if state.sleepers.count >= count { return Self.remaining(state) }
                state.watchers.append((count, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private static func remaining(_ state: State) -> [Duration] {
        state.sleepers.map { state.now.duration(to: $0.deadline) }.sorted()
    }

    private static func notifyWatchers(_ state: inout State) {
        let remaining = remaining(state)
        let count = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= count }
        state.watchers.removeAll { $0.count <= count }
        for watcher in ready { watcher.continuation.resume(returning: remaining) }
    }
}
