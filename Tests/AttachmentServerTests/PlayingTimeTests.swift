@testable import AttachmentServer
import Testing

/// A video tile's playing time, as people read clocks.
@Suite("The playing time on a video's tile")
struct PlayingTimeTests {
    @Test(arguments: [(0, "0:00"), (499, "0:00"), (2_500, "0:03"), (3_000, "0:03"), (59_600, "1:00"), (725_000, "12:05"),
                      (3_729_000, "1:02:09"), (36_000_000, "10:00:00"), (-5, "0:00")])
    func minutesAndSecondsThenHours(milliseconds: Int, text: String) {
        #expect(PlayingTime.text(milliseconds: milliseconds) == text)
    }
}
