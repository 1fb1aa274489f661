@testable import AttachmentStore
import Foundation
import Testing

@Suite("Hybrid logical clock", .timeLimit(.minutes(1)))
struct HybridClockTests {
    @Test("two edits stamped in the same millisecond on two peers are ordered by peer id, the same way everywhere")
    func sameMillisecondIsOrderedByPeer() {
        let fromA = ClockStamp(milliseconds: 1_790_000_000_000, counter: 3, peer: "aaaa-peer")
        let fromB = ClockStamp(milliseconds: 1_790_000_000_000, counter: 3, peer: "bbbb-peer")
        #expect(fromA < fromB)
        #expect([fromB, fromA].max() == fromB, "last writer wins: the higher peer id, on every peer")
        #expect(ClockStamp(milliseconds: 1_790_000_000_000, counter: 4, peer: "aaaa-peer") > fromB, "the counter comes before the peer id")
        #expect(ClockStamp(milliseconds: 1_790_000_000_001, counter: 0, peer: "aaaa-peer") > fromB, "time comes first")
    }

    @Test("a clock that has seen a peer's reading from the future stamps its next change after it")
    func observingMovesItPast() {
        let clock = HybridClock(peer: "local", latest: nil)
        let future = ClockStamp(milliseconds: Int64(Date.now.timeIntervalSince1970 * 1000) + 60_000, counter: 7, peer: "remote")
        clock.observe(future)
        let next = clock.tick()
        #expect(next > future)
        #expect(next.parts?.milliseconds == future.parts?.milliseconds && next.parts?.counter == 8)
    }

    @Test("readings older than any real one sort first, so a placeholder never wins")
    func originIsOldest() {
        #expect(ClockStamp.origin < ClockStamp(milliseconds: 0, counter: 0, peer: "a"))
    }
}
