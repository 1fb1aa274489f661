@testable import AttachmentStore
import Testing

/// How often a long write (a peer fetch) asks the disk to start on what it has written.
@Suite("Writeback steps")
struct WritebackStepTests {
    @Test("a file starts its writeback every eighth of its size, never under 2 MiB nor over 8 MiB")
    func writebackStartsEveryEighthBetweenTwoAndEightMiB() {
        let mib: Int64 = 1 << 20
        #expect(POSIXFile.writebackStep(forFileOf: 0) == 2 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: 3 * mib) == 2 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: 16_000_000) == 2 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: 32 * mib) == 4 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: 64 * mib) == 8 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: 256 * mib) == 8 * mib)
        #expect(POSIXFile.writebackStep(forFileOf: .max) == 8 * mib)
    }
}
