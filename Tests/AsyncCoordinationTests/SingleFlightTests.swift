import AsyncCoordination
import Foundation
import Synchronization
import Testing

/// The one coalescing primitive behind thumbnails and peer fetches.
@Suite("Single flight", .timeLimit(.minutes(3)))
struct SingleFlightTests {
    /// Counts how often the work ran, and whether it saw cancellation.
    final class Probe: Sendable {
        let runs = Atomic<Int>(0)
        let cancelled = Atomic<Int>(0)
        let jobsCancelled = Atomic<Int>(0)
    }

    @Test("twenty callers asking at once share one run of the work and its value")
    func concurrentCallersShareOneRun() async throws {
        let flights = SingleFlight<String, Int, Never>()
        let probe = Probe()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let ticket = flights.join("key") { _ in
                        probe.runs.add(1, ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(200))
                        return 42
                    }
                    return try await flights.value(of: ticket, for: "key")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 42, count: 20))
        #expect(probe.runs.load(ordering: .relaxed) == 1)
        #expect(flights.jobsInFlight == 0)
    }

    @Test("when the last waiter is cancelled the work is cancelled, and the next caller starts afresh")
    func lastWaiterLeavingCancelsTheWork() async throws {
        let flights = SingleFlight<String, Int, Never>()
        let probe = Probe()
        let work: @Sendable (UInt64) async throws -> Int = { _ in
            probe.runs.add(1, ordering: .relaxed)
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                probe.cancelled.add(1, ordering: .relaxed)
                throw error
            }
            return 1
        }
        let waiters = (0..<3).map { _ in
            Task { try await flights.value(of: flights.join("key", work: work), for: "key") { probe.jobsCancelled.add(1, ordering: .relaxed) } }
        }
        try await Task.sleep(for: .milliseconds(100))
        waiters[0].cancel()
        waiters[1].cancel()
        try await Task.sleep(for: .milliseconds(100))
        #expect(probe.cancelled.load(ordering: .relaxed) == 0, "one waiter is left")
        waiters[2].cancel()
        for waiter in waiters { _ = await waiter.result }
        while probe.cancelled.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(probe.jobsCancelled.load(ordering: .relaxed) == 1)
        #expect(flights.jobsInFlight == 0)

        let again = flights.join("key") { _ in 2 }
        #expect(again.isNew)
        #expect(try await flights.value(of: again, for: "key") == 2)
    }

    @Test("a job kept in the background runs to its end with no one waiting")
    func backgroundJobOutlivesItsWaiters() async throws {
        let flights = SingleFlight<String, Int, Never>()
        let probe = Probe()
        let background = flights.join("key", waiting: false) { _ in
            try await Task.sleep(for: .milliseconds(200))
            probe.runs.add(1, ordering: .relaxed)
            return 7
        }
        let waiter = Task { try await flights.value(of: flights.join("key") { _ in 0 }, for: "key") }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(try await background.task.value == 7)
        #expect(probe.runs.load(ordering: .relaxed) == 1)
    }

    @Test("a watcher that joins late gets the latest progress first, then what follows")
    func lateWatcherGetsTheLatestProgress() async throws {
        let flights = SingleFlight<String, Void, Int>()
        let (proceed, resume) = AsyncStream.makeStream(of: Void.self)
        let first = flights.join("key") { _ in
            for await _ in proceed { break }
        }
        flights.report("key", 10)
        flights.report("key", 20)
        let (events, continuation) = AsyncStream.makeStream(of: Int.self)
        let watcher = UUID()
        let second = flights.join("key", watcher: (watcher, continuation)) { _ in }
        #expect(!second.isNew)
        flights.report("key", 30)
        #expect(flights.lastProgress(of: "key") == 30)
        flights.unwatch("key", watcher: watcher)
        flights.report("key", 40)
        continuation.finish()
        resume.yield()
        try await flights.value(of: first, for: "key")
        var seen: [Int] = []
        for await event in events { seen.append(event) }
        #expect(seen == [20, 30])
        #expect(flights.lastProgress(of: "key") == nil, "no job, no progress")
    }
}
