import AsyncCoordination
import Synchronization
import Testing

/// `Deadline.run`: the caller has its answer within the limit, whatever the work does.
@Suite("Deadline", .timeLimit(.minutes(1)))
struct DeadlineTests {
    /// Set once by the work, read by the test.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    /// An error the work throws.
    struct WorkFailed: Error, Equatable {}

    @Test("work that finishes in time gives its value")
    func workInTimeGivesItsValue() async throws {
        let answer = try await Deadline.run(within: .seconds(30)) { 42 }
        #expect(answer == 42)
    }

    @Test("what the work throws before the limit reaches the caller")
    func workFailingInTimeThrows() async {
        await #expect(throws: WorkFailed()) {
            _ = try await Deadline.run(within: .seconds(30)) { () async throws -> Int in throw WorkFailed() }
        }
    }

    @Test("work that hangs gives nil at the limit, and is cancelled")
    func hangingWorkIsCutOffAndCancelled() async throws {
        let sawCancellation = Flag()
        let started = ContinuousClock.now
        let answer = try await Deadline.run(within: .milliseconds(200)) { () async -> Int in
            // Hangs until cancelled: the deadline, not the work, decides when the caller resumes.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            sawCancellation.set()
            return 1
        }
        #expect(answer == nil)
        // The work never ends on its own; a loaded machine may delay the caller, never by minutes.
        #expect(ContinuousClock.now - started < .seconds(120), "the caller waited far past the limit")
        // The work ends on its own once cancelled.
        for _ in 0..<500 where !sawCancellation.isSet { try await Task.sleep(for: .milliseconds(10)) }
        let cancelled = sawCancellation.isSet
        #expect(cancelled)
    }
}
