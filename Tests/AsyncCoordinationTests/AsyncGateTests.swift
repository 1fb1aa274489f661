import AsyncCoordination
import Foundation
import Synchronization
import Testing

/// The one gate for slots: render slots and a catalog's writers.
@Suite("Async gate", .timeLimit(.minutes(3)))
struct AsyncGateTests {
    /// The order things happened in, shared by the tasks of a test.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
        let holding = Atomic<Int>(0)
        let most = Atomic<Int>(0)
    }

    @Test("forty contenders for three slots never hold more than three at once")
    func neverMoreThanItsSlots() async throws {
        let gate = AsyncGate(slots: 3)
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0..<40 {
                group.addTask {
                    try await gate.acquire(id: UInt64(id))
                    let now = log.holding.add(1, ordering: .relaxed).newValue
                    _ = log.most.max(now, ordering: .relaxed)
                    try await Task.sleep(for: .milliseconds(2))
                    log.holding.subtract(1, ordering: .relaxed)
                    gate.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(log.most.load(ordering: .relaxed) == 3)
        #expect(gate.queueDepth == 0)
    }

    @Test("urgent waiters go first, a raised one joins them, and the rest keep their order")
    func urgentFirstThenInOrder() async throws {
        let gate = AsyncGate(slots: 1)
        let log = Log()
        try await gate.acquire(id: 100)
        var waiters: [Task<Void, any Error>] = []
        for (id, urgent) in [(1, false), (2, false), (3, true), (4, false), (5, true)] {
            waiters.append(Task {
                try await gate.acquire(id: UInt64(id), urgent: urgent)
                log.append("\(id)")
                gate.release()
            })
            while gate.queueDepth < waiters.count { try await Task.sleep(for: .milliseconds(2)) }
        }
        gate.raise(id: 4)
        gate.release()
        for waiter in waiters { try await waiter.value }
        #expect(log.all == ["3", "5", "4", "1", "2"])
    }

    @Test("a cancelled waiter leaves the queue at once and never holds a slot")
    func cancelledWaiterLeaves() async throws {
        let gate = AsyncGate(slots: 1)
        try await gate.acquire(id: 1)
        let waiter = Task { try await gate.acquire(id: 2) }
        while gate.queueDepth < 1 { try await Task.sleep(for: .milliseconds(2)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(gate.queueDepth == 0)
        gate.release()
        // The slot is free again: the cancelled waiter took none.
        try await gate.acquire(id: 3)
        gate.release()
    }

    @Test("withSlot runs bodies one after another in arrival order, a cancelled caller's too")
    func uncancellableSlotsKeepOrder() async throws {
        let gate = AsyncGate(slots: 1)
        let log = Log()
        let (release, hold) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await gate.withSlot {
                log.append("first")
                for await _ in release { break }
            }
        }
        while log.all.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let second = Task { try await gate.withSlot { log.append("second") } }
        while gate.queueDepth < 1 { try await Task.sleep(for: .milliseconds(2)) }
        second.cancel()
        let third = Task { try await gate.withSlot { log.append("third") } }
        while gate.queueDepth < 2 { try await Task.sleep(for: .milliseconds(2)) }
        hold.yield()
        try await first.value
        try await second.value
        try await third.value
        #expect(log.all == ["first", "second", "third"])
    }
}
