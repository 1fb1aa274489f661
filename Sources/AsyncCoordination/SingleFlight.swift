import Foundation
import Synchronization

/// One job per key, however many ask for it at once: the coalescing that thumbnails (one
/// render per content and size) and peer fetches (one transfer per blob) both need.
///
/// - ``join(_:waiting:priority:watcher:work:)`` starts the job for a key, or joins the one
///   under way; a job started with `waiting: false` (a prefetch) runs to its end with no one
///   waiting, and joining one that way keeps an existing job alive the same way.
/// - ``value(of:for:)`` waits as one of the job's waiters. A waiter whose task is cancelled
///   leaves; when the last waiter of a job nobody keeps in the background has left, the job
///   is cancelled and forgotten, so the next request starts afresh.
/// - ``report(_:_:)`` fans progress out to the job's watchers; a watcher that joins late is
///   given the latest report first.
///
/// All bookkeeping sits behind one mutex; the work itself runs in its own task, never under it.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable, Progress: Sendable>: Sendable {
    /// A caller's hold on a job.
    package struct Ticket: Sendable {
        /// The job's id (unique for the life of this value), for work that needs a name.
        package let id: UInt64
        /// The job's task.
        package let task: Task<Value, any Error>
        /// Whether this call started the job (else it joined one under way).
        package let isNew: Bool
    }

    private struct Job {
        let id: UInt64
        let task: Task<Value, any Error>
        var waiters: Int
        var background: Bool
        var watchers: [UUID: AsyncStream<Progress>.Continuation] = [:]
        var lastProgress: Progress?
    }

    private struct State {
        var jobs: [Key: Job] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// No jobs yet.
    package init() {}

    /// Joins the job for `key`, or starts one running `work` (given the job's id).
    /// - Parameters:
    ///   - waiting: `true` when the caller will wait through ``value(of:for:)`` (it counts as a
    ///     waiter); `false` to keep the job running with no one waiting.
    ///   - priority: the task priority of a job this call starts.
    ///   - watcher: receives the job's progress reports (the latest one at once, if any).
    package func join(_ key: Key, waiting: Bool = true, priority: TaskPriority? = nil,
                      watcher: (id: UUID, continuation: AsyncStream<Progress>.Continuation)? = nil,
                      work: @escaping @Sendable (UInt64) async throws -> Value) -> Ticket {
        state.withLock { state in
            if var job = state.jobs[key] {
                if waiting { job.waiters += 1 } else { job.background = true }
                if let watcher {
                    job.watchers[watcher.id] = watcher.continuation
                    if let last = job.lastProgress { watcher.continuation.yield(last) }
                }
                state.jobs[key] = job
                return Ticket(id: job.id, task: job.task, isNew: false)
            }
            state.nextID += 1
            let id = state.nextID
            let task = Task(priority: priority) {
                defer { self.finish(key, id: id) }
                return try await work(id)
            }
            var job = Job(id: id, task: task, waiters: waiting ? 1 : 0, background: !waiting)
            if let watcher { job.watchers[watcher.id] = watcher.continuation }
            state.jobs[key] = job
            return Ticket(id: id, task: task, isNew: true)
        }
    }

    /// Waits for the job of `ticket` as one of its waiters; cancelling the calling task leaves
    /// the job (see ``leave(_:ticket:)``), and `jobCancelled` runs when that cancelled the job.
    package func value(of ticket: Ticket, for key: Key, jobCancelled: (@Sendable () -> Void)? = nil) async throws -> Value {
        try await withTaskCancellationHandler {
            try await ticket.task.value
        } onCancel: {
            if leave(key, ticket: ticket.id) { jobCancelled?() }
        }
    }

    /// One waiter of job `ticket` goes away; the last one cancels the job unless it is kept in
    /// the background. Returns whether the job was cancelled.
    @discardableResult
    package func leave(_ key: Key, ticket: UInt64) -> Bool {
        let cancelled = state.withLock { state -> Task<Value, any Error>? in
            guard var job = state.jobs[key], job.id == ticket else { return nil }
            job.waiters -= 1
            guard job.waiters <= 0, !job.background else {
                state.jobs[key] = job
                return nil
            }
            state.jobs[key] = nil
            return job.task
        }
        cancelled?.cancel()
        return cancelled != nil
    }

    /// Stops sending progress of `key`'s job to `watcher`.
    package func unwatch(_ key: Key, watcher: UUID) {
        state.withLock { state in _ = state.jobs[key]?.watchers.removeValue(forKey: watcher) }
    }

    /// Records `progress` as the latest of `key`'s job and sends it to the job's watchers.
    package func report(_ key: Key, _ progress: Progress) {
        let watchers = state.withLock { state -> [AsyncStream<Progress>.Continuation] in
            guard state.jobs[key] != nil else { return [] }
            state.jobs[key]?.lastProgress = progress
            return state.jobs[key].map { Array($0.watchers.values) } ?? []
        }
        for watcher in watchers { watcher.yield(progress) }
    }

    /// The latest progress of `key`'s job, while one is under way.
    package func lastProgress(of key: Key) -> Progress? {
        state.withLock { $0.jobs[key]?.lastProgress }
    }

    /// How many jobs are under way.
    package var jobsInFlight: Int { state.withLock { $0.jobs.count } }

    /// The tasks of every job under way now.
    package var tasks: [Task<Value, any Error>] { state.withLock { $0.jobs.values.map(\.task) } }

    private func finish(_ key: Key, id: UInt64) {
        state.withLock { state in
            if state.jobs[key]?.id == id { state.jobs[key] = nil }
        }
    }
}
