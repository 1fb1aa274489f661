@testable import AttachmentServer
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// The pieces that bound what an upload may take, each on its own: the lock-free
/// ``BoundedCounter`` behind the connection and upload limits, ``UploadSlots`` (a slot given
/// back once however often it is finished), the minimum-rate rule ``UploadRate`` at its exact
/// edges, ``UploadBody`` (the byte limit, the chunk counter, a cut-off body) and
/// ``NonEmptyBytes`` (an empty upload refused however it arrives), plus the server's
/// blob-bytes counter and whole-nanosecond durations.
@Suite("Upload limits, one piece at a time")
struct UploadLimitUnitTests {
    // MARK: - Counting

    @Test("a bounded counter counts up to its limit and refuses past it, and a leave frees one place")
    func boundedCounter() {
        let counter = BoundedCounter(limit: 3)
        #expect(counter.limit == 3 && counter.current == 0)
        #expect((0..<3).allSatisfy { _ in counter.enter() })
        #expect(counter.current == 3)
        #expect(!counter.enter(), "the fourth is refused")
        #expect(counter.current == 3, "a refusal counts nothing")
        counter.leave()
        #expect(counter.current == 2)
        #expect(counter.enter())
        #expect(!counter.enter())
    }

    @Test("a counter with a limit of zero admits no one")
    func zeroLimit() {
        let counter = BoundedCounter(limit: 0)
        #expect(!counter.enter())
        #expect(counter.current == 0)
    }

    @Test("many tasks entering at once never count past the limit")
    func concurrentEntries() async {
        let counter = BoundedCounter(limit: 50)
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 { group.addTask { counter.enter() } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 50)
        #expect(counter.current == 50)
    }

    @Test("upload slots are handed out up to the limit; finishing one twice gives back one slot only")
    func uploadSlots() throws {
        let slots = UploadSlots(limit: 2)
        let first = try #require(slots.take())
        let second = try #require(slots.take())
        #expect(slots.take() == nil)
        first.finish()
        first.finish()
        first.finish()
        let third = try #require(slots.take(), "the finished slot is free again")
        #expect(slots.take() == nil, "finishing again did not free a second one")
        second.finish()
        third.finish()
        #expect(slots.take() != nil && slots.take() != nil && slots.take() == nil)
    }

    @Test("blob bytes served to peers add up")
    func syncCounters() {
        let counters = SyncCounters()
        #expect(counters.blobBytesServed == 0)
        counters.served(1_000)
        counters.served(24)
        #expect(counters.blobBytesServed == 1_024)
    }

    @Test("a duration in whole nanoseconds keeps seconds and drops what is below a nanosecond", arguments: [
        (Duration.zero, 0), (.seconds(2), 2_000_000_000), (.milliseconds(1_500), 1_500_000_000), (.nanoseconds(7), 7),
        (.seconds(-1), -1_000_000_000), (.milliseconds(-1_500), -1_500_000_000), (.seconds(3_600), 3_600_000_000_000),
    ] as [(Duration, Int64)])
    func nanoseconds(duration: Duration, nanoseconds: Int64) {
        #expect(duration.nanoseconds == nanoseconds)
    }

    // MARK: - The rate rule

    /// The verdicts of a rule of `minimum` bytes a second over `window`, fed `steps` (bytes, wait) in order.
    static func verdicts(_ minimum: Int64, _ window: Duration, _ steps: [(Int, Duration)]) -> [Bool] {
        var rule = UploadRate(minimumBytesPerSecond: minimum, window: window)
        return steps.map { rule.record($0.0, after: $0.1) }
    }

    @Test("exactly the minimum over a window passes; one byte fewer is too slow")
    func rateEdge() {
        #expect(Self.verdicts(100, .seconds(10), [(1_000, .seconds(10))]) == [true])
        #expect(Self.verdicts(100, .seconds(10), [(999, .seconds(10))]) == [false])
    }

    @Test("the verdict comes once waiting reaches the window, averaged over all the waiting, then the count starts again")
    func rateWindows() {
        let verdicts = Self.verdicts(100, .seconds(10), [
            (0, .seconds(9)),        // no verdict before a whole window
            (1_899, .seconds(10)),   // 19 s of waiting in all: 1,900 bytes needed, 1,899 arrived
            (5_000, .seconds(10)),   // the window started again: the slow one before is not held against it
            (600, .seconds(4)),      // no verdict yet…
            (400, .seconds(6)),      // …then 600 + 400 over 10 s: bytes from earlier in the window count
        ])
        #expect(verdicts == [true, false, true, true, true])
    }

    @Test("waiting measured in fractions of a second counts in full")
    func rateFractions() {
        let verdicts = Self.verdicts(1_000, .milliseconds(1_500), [
            (1_000, .milliseconds(750)), (499, .milliseconds(750)),  // 1,499 bytes in 1.5 s: below 1,000/s
            (1_000, .milliseconds(750)), (500, .milliseconds(750)),  // 1,500 bytes in 1.5 s: exactly 1,000/s
        ])
        #expect(verdicts == [true, false, true, true])
    }

    // MARK: - Upload bodies

    /// A body of `chunks`, then the end, or `failure` instead of the end.
    static func stream(_ chunks: [[UInt8]], failing failure: (any Error)? = nil) -> AsyncThrowingStream<ByteBuffer, any Error> {
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(ByteBuffer(bytes: chunk)) }
            continuation.finish(throwing: failure)
        }
    }

    /// The same as plain byte arrays, as a multipart part's body arrives.
    static func arrays(_ chunks: [[UInt8]], failing failure: (any Error)? = nil) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish(throwing: failure)
        }
    }

    static func drain<S: AsyncSequence>(_ sequence: S) async throws -> [UInt8] where S.Element: Collection, S.Element.Element == UInt8 {
        var bytes: [UInt8] = []
        for try await chunk in sequence { bytes += chunk }
        return bytes
    }

    @Test("a body within the limit passes whole, every chunk counted; exactly the limit is allowed")
    func bodyWithinLimit() async throws {
        let counted = Mutex<[Int]>([])
        let body = UploadBody(base: Self.stream([[1, 2, 3], [], [4, 5]]), limit: 5, rate: nil) { size in
            counted.withLock { $0.append(size) }
        }
        #expect(try await Self.drain(body) == [1, 2, 3, 4, 5])
        #expect(counted.withLock { $0 } == [3, 0, 2])
    }

    @Test("a body past the limit stops at the chunk that passes it with 413 upload_too_large, and that chunk is not counted")
    func bodyPastLimit() async throws {
        let counted = Mutex<Int>(0)
        let body = UploadBody(base: Self.stream([[1, 2, 3], [4, 5, 6], [7]]), limit: 5, rate: nil) { size in
            counted.withLock { $0 += size }
        }
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next().map(Array.init) == [1, 2, 3])
        await #expect(throws: ServerError.uploadTooLarge(limit: 5)) { _ = try await iterator.next() }
        #expect(counted.withLock { $0 } == 3)
    }

    @Test("a body cut off by the client is a 400 body_interrupted, not a server failure")
    func bodyInterrupted() async throws {
        let body = UploadBody(base: Self.stream([[1]], failing: HTTPParserError.invalidEOFState), limit: 100, rate: nil) { _ in }
        do {
            _ = try await Self.drain(body)
            Issue.record("no error")
        } catch let error as ServerError {
            #expect(error.status == .badRequest && error.code == "body_interrupted")
        }
    }

    @Test("any other failure of the body passes through as it is")
    func bodyOtherFailure() async throws {
        struct Broken: Error, Equatable {}
        let body = UploadBody(base: Self.stream([], failing: Broken()), limit: 100, rate: nil) { _ in }
        await #expect(throws: Broken()) { _ = try await Self.drain(body) }
    }

    @Test("an upload's bytes skip empty chunks and pass the rest as they are")
    func nonEmptyBytes() async throws {
        let bytes = NonEmptyBytes(base: Self.arrays([[], [1], [], [], [2, 3]]))
        #expect(try await Self.drain(bytes) == [1, 2, 3])
    }

    @Test("an upload with no byte, however its chunks arrive, is a 422 empty_upload", arguments: [[], [[]], [[], [], []]] as [[[UInt8]]])
    func emptyUploads(chunks: [[UInt8]]) async throws {
        do {
            _ = try await Self.drain(NonEmptyBytes(base: Self.arrays(chunks)))
            Issue.record("no error")
        } catch let error as ServerError {
            #expect(error.status == .unprocessableContent && error.code == "empty_upload")
        }
    }

    @Test("an empty upload is refused only at the end: a base failure before it comes through first")
    func emptyUploadFailureFirst() async throws {
        struct Broken: Error, Equatable {}
        await #expect(throws: Broken()) { _ = try await Self.drain(NonEmptyBytes(base: Self.arrays([[]], failing: Broken()))) }
    }
}
