@testable import AttachmentStore
import Foundation
import Testing

@Suite("Hybrid logical clock", .timeLimit(.minutes(3)))
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

extension HybridClockTests {
    @Test("a reading is fixed-width digits then the peer, so string order is time order", arguments: [
        (0, 0, "p"), (1_790_000_000_123, 42, "peer-with-dashes"), (9_999_999_999_999, 999_999, "z"),
    ] as [(Int64, Int, String)])
    func readingLayout(milliseconds: Int64, counter: Int, peer: String) {
        let stamp = ClockStamp(milliseconds: milliseconds, counter: counter, peer: peer)
        #expect(stamp.rawValue.count == 13 + 1 + 6 + 1 + peer.count)
        #expect(stamp.parts?.milliseconds == milliseconds && stamp.parts?.counter == counter)
        #expect(stamp.rawValue.hasSuffix("-" + peer))
    }

    @Test("a malformed reading has no parts and moves no clock", arguments: ["", "abc", "12-34", "x-000001-p", "0000000000001-y-p"])
    func malformedReadingIsIgnored(raw: String) {
        #expect(ClockStamp(rawValue: raw).parts == nil)
        let clock = HybridClock(peer: "local", latest: nil)
        let before = clock.tick()
        clock.observe(ClockStamp(rawValue: raw))
        #expect(clock.tick() > before)
    }

    @Test("a clock opened on a catalog whose newest reading is ahead of the wall clock stamps after it")
    func startsPastTheCatalog() {
        let ahead = ClockStamp(milliseconds: Int64(Date.now.timeIntervalSince1970 * 1000) + 5_000, counter: 41, peer: "local")
        let clock = HybridClock(peer: "local", latest: ahead)
        let first = clock.tick(), second = clock.tick()
        #expect(first > ahead && second > first)
        #expect(first.parts?.counter == 42 && second.parts?.counter == 43)
    }

    @Test("a thousand readings in a burst are strictly increasing")
    func burstIsStrictlyIncreasing() {
        let clock = HybridClock(peer: "local", latest: nil)
        let readings = (0..<1000).map { _ in clock.tick() }
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 < $1 })
    }
}
