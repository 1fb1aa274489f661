@testable import AttachmentSync
import Testing

/// `RoundPacing`: when a peer loop asks again, decided from each round's outcome alone.
@Suite("Round pacing")
struct RoundPacingTests {
    @Test("failures back off doubling from the interval up to the maximum, and a completed round starts over")
    func failuresBackOffAndRecover() {
        var pacing = RoundPacing(interval: .seconds(5), maximumBackoff: .seconds(60))
        #expect((0..<6).map { _ in pacing.afterFailure() } == [.seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60), .seconds(60)])
        _ = pacing.afterPull(took: .seconds(1), changes: 0, cursor: 0)
        #expect(pacing.afterFailure() == .seconds(10))
    }

    @Test("a round that moved the cursor is followed at once; one that brought nothing waits out the interval")
    func progressGoesOnAtOnce() {
        var pacing = RoundPacing(interval: .seconds(5), maximumBackoff: .seconds(60))
        #expect(pacing.afterPull(took: .milliseconds(300), changes: 10, cursor: 10) == .zero)
        #expect(pacing.afterPull(took: .seconds(2), changes: 0, cursor: 10) == .seconds(3))
        #expect(pacing.afterPull(took: .seconds(7), changes: 0, cursor: 10) == .zero, "a slow round owes no more wait")
    }

    @Test("a peer sending the same changes again is asked no more often than the interval")
    func repeatedChangesDoNotSpin() {
        var pacing = RoundPacing(interval: .seconds(5), maximumBackoff: .seconds(60))
        #expect(pacing.afterPull(took: .milliseconds(10), changes: 3, cursor: 7) == .zero)
        #expect(pacing.afterPull(took: .milliseconds(10), changes: 3, cursor: 7) == .seconds(5) - .milliseconds(10))
    }

    @Test("a round the peer held (a long poll answered late) is followed at once")
    func heldRoundGoesOnAtOnce() {
        var pacing = RoundPacing(interval: .seconds(5), maximumBackoff: .seconds(60), wait: .seconds(25))
        #expect(pacing.afterPull(took: .seconds(25), changes: 0, cursor: 0) == .zero)
        #expect(pacing.afterPull(took: .seconds(1), changes: 0, cursor: 0) == .seconds(4))
    }

    @Test("a completed push resets the back-off and does not wait")
    func pushResets() {
        var pacing = RoundPacing(interval: .seconds(5), maximumBackoff: .seconds(60))
        _ = pacing.afterFailure()
        _ = pacing.afterFailure()
        #expect(pacing.afterPush() == .zero)
        #expect(pacing.afterFailure() == .seconds(10))
    }
}
