@testable import AttachmentStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// The long poll under `GET /sync/changes?wait=`: a waiter wakes when the feed moves, however
/// the write reached the catalog, and many waiters cost the catalog no more than one.
@Suite("Waiting for the change feed", .timeLimit(.minutes(2)))
struct ChangeFeedWaitTests {
    /// A feed position the test moves by hand, counting how often it is read.
    final class ScriptedFeed: Sendable {
        private let state = Mutex((position: Int64(0), reads: 0))
        var reads: Int { state.withLock { $0.reads } }
        func move(to position: Int64) { state.withLock { $0.position = position } }
        func read() -> Int64 {
            state.withLock { state in
                state.reads += 1
                return state.position
            }
        }
    }

    /// A task waiting up to 30 s for `store`'s feed to move past where it is now, and that position.
    static func waiter(on store: AttachmentStore) async throws -> (position: Int64, task: Task<Bool, Never>) {
        let position = try await store.changeFeedPosition()
        return (position, Task { await store.waitForChanges(after: position, upTo: .seconds(30)) })
    }

    static func elapsed(_ operation: () async throws -> Void) async rethrows -> Duration {
        let start = ContinuousClock.now
        try await operation()
        return ContinuousClock.now - start
    }

    @Test("a waiter wakes as soon as this store writes, with the write in the feed")
    func wakesOnALocalWrite() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let (position, waiter) = try await Self.waiter(on: store)
        try await Task.sleep(for: .milliseconds(200))
        let note = try await store.createNote(title: "typed on the laptop")
        let took = await Self.elapsed { #expect(await waiter.value, "the feed moved") }
        #expect(took < .seconds(10), "woken by the write, not by the 30 s timeout")
        let batch = try await store.changes(since: position)
        #expect(batch.changes.contains { if case .note(let state) = $0 { state.note.id == note.id } else { false } })
    }

    @Test("a write by another server on the same catalog (or attach on the same folder) is seen by the re-check")
    func seesAnotherWriter() async throws {
        let fixture = try await StoreFixture()
        let (_, waiter) = try await Self.waiter(on: fixture.store)
        try await Task.sleep(for: .milliseconds(300))
        try await fixture.asAnotherServer { other in _ = try await other.createNote(title: "written elsewhere") }
        let took = await Self.elapsed { #expect(await waiter.value) }
        #expect(took < .seconds(10), "the re-check every quarter second saw it")
    }

    @Test("with nothing new a wait ends at its timeout and says the feed did not move")
    func endsAtItsTimeout() async throws {
        let feed = ScriptedFeed()
        let watcher = ChangeFeedWatcher(recheckInterval: .milliseconds(50)) { feed.read() }
        var moved = true
        let took = await Self.elapsed { moved = await watcher.wait(past: 0, timeout: .milliseconds(400)) }
        #expect(!moved)
        #expect(took >= .milliseconds(400))
        #expect(watcher.waiting == 0)
    }

    @Test("a feed already past the position answers at once")
    func answersAtOnceWhenAlreadyPast() async throws {
        let feed = ScriptedFeed()
        feed.move(to: 7)
        let watcher = ChangeFeedWatcher(recheckInterval: .seconds(60)) { feed.read() }
        let took = await Self.elapsed { #expect(await watcher.wait(past: 6, timeout: .seconds(600))) }
        #expect(took < .seconds(120), "answered, not timed out after ten minutes")
    }

    @Test("a cancelled waiter leaves at once and is not counted as waiting")
    func cancelledWaiterLeaves() async throws {
        let feed = ScriptedFeed()
        let watcher = ChangeFeedWatcher(recheckInterval: .milliseconds(50)) { feed.read() }
        let waiter = Task { await watcher.wait(past: 0, timeout: .seconds(600)) }
        try await ServerlessWait.until { watcher.waiting == 1 }
        let took = await Self.elapsed {
            waiter.cancel()
            #expect(await !waiter.value)
        }
        #expect(took < .seconds(120), "left at the cancel, not after its ten minutes")
        #expect(watcher.waiting == 0)
    }

    @Test("two hundred waiters share the reads of the feed, and one move wakes them all")
    func waitersShareTheReads() async throws {
        let feed = ScriptedFeed()
        let watcher = ChangeFeedWatcher(recheckInterval: .milliseconds(100)) { feed.read() }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { await watcher.wait(past: 0, timeout: .seconds(60)) } }
            try await ServerlessWait.until { watcher.waiting == 200 }
            try await Task.sleep(for: .milliseconds(200))  // the arrivals' own checks settle
            let before = feed.reads
            try await Task.sleep(for: .seconds(1))
            let during = feed.reads - before
            #expect(during <= 15, "about one read per re-check for all 200, not 200 per re-check: \(during)")
            feed.move(to: 1)
            watcher.poke()
            var woken = 0
            for try await moved in group where moved { woken += 1 }
            #expect(woken == 200)
        }
        #expect(watcher.waiting == 0)
    }
}

/// Polls a condition without a server.
enum ServerlessWait {
    static func until(_ seconds: Int = 20, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
