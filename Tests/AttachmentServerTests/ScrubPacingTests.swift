@testable import AttachmentServer
import AsyncCoordination
import Logging
import TestSupport
import Testing

/// `ScrubPacing`: the scrub's rate and pass spacing, decided from each step's figures alone.
@Suite("Scrub pacing")
struct ScrubPacingTests {
    static let pacing = ScrubPacing(bytesPerSecond: 10_000_000, minimumPassInterval: .seconds(10))

    @Test("a step waits out the time its bytes are owed at the rate", arguments: [
        (Int64(10_000_000), Duration.milliseconds(250), Duration.milliseconds(750)),
        (5_000_000, .zero, .milliseconds(500)),
        (10_000_000, .seconds(2), .zero),
        (0, .zero, .zero),
    ])
    func stepPause(bytes: Int64, took: Duration, pause: Duration) {
        #expect(Self.pacing.pause(afterStepOf: bytes, took: took) == pause)
    }

    @Test("passes start at most every minimum interval; a long pass starts the next at once")
    func passSpacing() {
        #expect(Self.pacing.pause(afterPassThatStarted: .seconds(3)) == .seconds(7))
        #expect(Self.pacing.pause(afterPassThatStarted: .seconds(30)) == .zero)
    }

    @Test("a rate of zero never divides by it")
    func zeroRate() {
        #expect(ScrubPacing(bytesPerSecond: 0, minimumPassInterval: .seconds(10)).pause(afterStepOf: 1_000, took: .zero) == .zero)
    }
}

/// The scrub service's loop on a clock the test drives: it re-hashes, then waits exactly what
/// the rate owes, then what keeps passes apart, without the test waiting for either.
@Suite("Scrub service on a driven clock", .timeLimit(.minutes(2)))
struct ScrubServiceClockTests {
    @Test("after a pass over one photo it waits what the rate owes, then the rest of the pass interval")
    func serviceWaitsWhatTheRateOwes() async throws {
        let fixture = try await StoreFixture("scrub-clock")
        let note = try await fixture.store.createNote(title: "one")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Aqua.jpg"))
        let clock = ManualClock()
        var service = ScrubService(store: fixture.store, bytesPerSecond: 1_000_000, metrics: ServerMetrics(), logger: Logger(label: "test"),
                                   minimumPassInterval: .seconds(600))
        service.clock = LoopClock(clock)
        let scrubbing = Task { try await service.run() }
        defer { scrubbing.cancel() }

        // The clock stands still while it works, so a step "took" nothing: the whole owed time is waited.
        let owed = await clock.sleepers(atLeast: 1)
        #expect(owed == [.seconds(Double(attachment.byteCount) / 1_000_000)])
        clock.advance(by: owed[0])
        // The pass is over (one blob): the next starts 600 s after this one did.
        let spacing = await clock.sleepers(atLeast: 1)
        #expect(spacing == [.seconds(600) - owed[0]])
        #expect(try await fixture.store.statistics().damagedBlobs == 0)
        scrubbing.cancel()
        _ = await scrubbing.result
    }
}
