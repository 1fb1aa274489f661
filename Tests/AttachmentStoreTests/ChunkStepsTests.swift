@testable import AttachmentStore
import Testing

/// `ChunkSteps`: chunks as they arrive, regrouped into writes of at least a size, and what a
/// cut stream keeps.
@Suite("Chunk steps")
struct ChunkStepsTests {
    struct Cut: Error, Equatable {}

    /// A stream of `chunks`, ending with `failure` when one is given.
    static func stream(_ chunks: [[UInt8]], failingWith failure: Cut? = nil) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish(throwing: failure)
        }
    }

    static func steps(_ stream: AsyncThrowingStream<[UInt8], any Error>, size: Int) async -> (steps: [[UInt8]], failure: (any Error)?) {
        var steps: [[UInt8]] = []
        do {
            for try await step in ChunkSteps(stream, size: size) {
                #expect(step.byteCount == step.chunks.reduce(0) { $0 + $1.count })
                steps.append(step.bytes)
            }
            return (steps, nil)
        } catch {
            return (steps, error)
        }
    }

    @Test("chunks are gathered into steps of at least the size, the last one shorter, the bytes in order")
    func gathersIntoSteps() async {
        let chunks = (0..<10).map { index in [UInt8](repeating: UInt8(index), count: 3) }
        let (steps, failure) = await Self.steps(Self.stream(chunks), size: 7)
        #expect(failure == nil)
        #expect(steps.map(\.count) == [9, 9, 9, 3])
        #expect(steps.flatMap { $0 } == chunks.flatMap { $0 })
    }

    @Test("a cut stream delivers what arrived as a last step, then throws its failure")
    func cutStreamKeepsWhatArrived() async {
        let (steps, failure) = await Self.steps(Self.stream([[1, 2], [3]], failingWith: Cut()), size: 100)
        #expect(steps == [[1, 2, 3]])
        #expect(failure as? Cut == Cut())
    }

    @Test("a stream cut before any byte throws at once; an empty one has no step")
    func nothingArrived() async {
        let cut = await Self.steps(Self.stream([], failingWith: Cut()), size: 4)
        #expect(cut.steps.isEmpty && cut.failure as? Cut == Cut())
        let empty = await Self.steps(Self.stream([]), size: 4)
        #expect(empty.steps.isEmpty && empty.failure == nil)
    }
}
