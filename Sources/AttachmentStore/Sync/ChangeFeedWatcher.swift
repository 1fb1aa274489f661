import Synchronization

/// Wakes those waiting for the change feed to move past a position: the long poll of
/// `GET /sync/changes?wait=` and of the store's `waitForChanges(after:upTo:)`.
///
/// However many wait, the feed's position is read by one check at a time: a check runs when this
/// process writes the catalog (`poke()`, from `Catalog`'s writes), when a waiter arrives, and
/// every `recheckInterval` while anyone waits, which is how writes this process did not make
/// are seen (another server on a shared PostgreSQL catalog, or `attach` on the same store
/// folder). Waiting suspends a task and never holds a thread; a cancelled waiter leaves at once.
final class ChangeFeedWatcher: Sendable {
    /// Reads the feed's newest position.
    typealias Position = @Sendable () async throws -> Int64

    private enum Slot {
        /// Registered, not yet suspended.
        case registered(since: Int64, deadline: ContinuousClock.Instant)
        /// Suspended until the feed moves past `since` or `deadline` passes.
        case waiting(since: Int64, deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Bool, Never>)
        /// Decided before it suspended.
        case decided(Bool)

        var since: Int64? {
            switch self {
            case .registered(let since, _), .waiting(let since, _, _): since
            case .decided: nil
            }
        }

        var deadline: ContinuousClock.Instant? {
            switch self {
            case .registered(_, let deadline), .waiting(_, let deadline, _): deadline
            case .decided: nil
            }
        }
    }

    private struct State {
        var slots: [UInt64: Slot] = [:]
        var nextID: UInt64 = 0
        /// A check of the position is running.
        var checking = false
        /// Something asked for a check while one ran: run another after it.
        var checkAgain = false
        /// The timer that re-checks and expires deadlines is running.
        var ticking = false
        /// Position reads so far (for tests: many waiters share each read).
        var checks = 0

        /// Decides slot `id` as `moved`: the continuation to resume, if it was suspended.
        mutating func decide(_ id: UInt64, moved: Bool) -> CheckedContinuation<Bool, Never>? {
            switch slots[id] {
            case .registered:
                slots[id] = .decided(moved)
                return nil
            case .waiting(_, _, let continuation):
                slots[id] = nil
                return continuation
            case .decided, nil:
                return nil
            }
        }
    }

    private let state = Mutex(State())
    private let position: Position
    /// How often a waiter's position is read again when this process writes nothing.
    let recheckInterval: Duration

    /// A watcher reading the feed's position with `position`.
    init(recheckInterval: Duration = .milliseconds(250), position: @escaping Position) {
        self.recheckInterval = recheckInterval
        self.position = position
    }

    /// How many times the position has been read.
    var checks: Int { state.withLock { $0.checks } }

    /// How many are waiting now.
    var waiting: Int { state.withLock { $0.slots.count } }

    /// Waits until the feed's position is past `since` or `timeout` has passed (to within
    /// `recheckInterval`), or the task is cancelled.
    /// - Returns: whether the feed moved past `since`.
    func wait(past since: Int64, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let (id, startTimer) = state.withLock { state -> (UInt64, Bool) in
            state.nextID &+= 1
            state.slots[state.nextID] = .registered(since: since, deadline: deadline)
            defer { state.ticking = true }
            return (state.nextID, !state.ticking)
        }
        if startTimer { Task { await tick() } }
        poke()
        let moved = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let decided = state.withLock { state -> Bool? in
                    switch state.slots[id] {
                    case .registered(let since, let deadline):
                        state.slots[id] = .waiting(since: since, deadline: deadline, continuation: continuation)
                        return nil
                    case .decided(let moved):
                        state.slots[id] = nil
                        return moved
                    case .waiting, nil:
                        return false  // cannot happen: only this waiter suspends its own slot
                    }
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            state.withLock { $0.decide(id, moved: false) }?.resume(returning: false)
        }
        return moved
    }

    /// Asks for a check of the position (after this process wrote the catalog). Costs a lock
    /// when nobody waits; checks asked for while one runs are folded into one more.
    func poke() {
        let start = state.withLock { state -> Bool in
            guard !state.slots.isEmpty else { return false }
            if state.checking {
                state.checkAgain = true
                return false
            }
            state.checking = true
            return true
        }
        if start { Task { await checkUntilSettled() } }
    }

    private func checkUntilSettled() async {
        while true {
            let latest = try? await position()
            let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
                state.checks += 1
                guard let latest else { return [] }
                let moved = state.slots.compactMap { id, slot in slot.since.map { $0 < latest } == true ? id : nil }
                return moved.compactMap { state.decide($0, moved: true) }
            }
            for continuation in ready { continuation.resume(returning: true) }
            let again = state.withLock { state -> Bool in
                if state.checkAgain && !state.slots.isEmpty {
                    state.checkAgain = false
                    return true
                }
                state.checkAgain = false
                state.checking = false
                return false
            }
            if !again { return }
        }
    }

    /// While anyone waits: every `recheckInterval`, expire the waiters whose deadline passed
    /// and check the position.
    private func tick() async {
        while true {
            try? await Task.sleep(for: recheckInterval)
            let now = ContinuousClock.now
            let (expired, goOn) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], Bool) in
                let due = state.slots.compactMap { id, slot in slot.deadline.map { $0 <= now } == true ? id : nil }
                let expired = due.compactMap { state.decide($0, moved: false) }
                if state.slots.isEmpty { state.ticking = false }
                return (expired, state.ticking)
            }
            for continuation in expired { continuation.resume(returning: false) }
            guard goOn else { return }
            poke()
        }
    }
}
