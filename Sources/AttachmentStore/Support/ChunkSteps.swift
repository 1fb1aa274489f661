import Foundation

/// A stream of byte chunks as they arrive (a request body, a peer's response), regrouped into
/// steps of at least `size` bytes: the one place where bytes are gathered into writes of about
/// a MiB, for uploads, resumable uploads and peer downloads alike. The chunks are kept as they
/// came, never copied, until a step asks for ``ChunkStep/bytes``.
///
/// When the stream fails, the chunks that arrived before the failure are still delivered, as a
/// last (shorter) step, and the failure is thrown by the call after it: a cut transfer keeps
/// what arrived.
struct ChunkSteps<Base: AsyncSequence>: AsyncSequence where Base.Element: DataProtocol {
    typealias Element = ChunkStep<Base.Element>

    private let base: Base
    private let size: Int

    /// `base` in steps of at least `size` bytes (the last may be shorter).
    init(_ base: Base, size: Int) {
        self.base = base
        self.size = Swift.max(1, size)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), size: size)
    }

    /// Reads the base stream a step at a time.
    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let size: Int
        private var failure: (any Error)?
        private var finished = false

        init(base: Base.AsyncIterator, size: Int) {
            self.base = base
            self.size = size
        }

        mutating func next() async throws -> ChunkStep<Base.Element>? {
            if let failure {
                self.failure = nil
                finished = true
                throw failure
            }
            guard !finished else { return nil }
            var step = ChunkStep<Base.Element>()
            do {
                while step.byteCount < size {
                    guard let chunk = try await base.next() else {
                        finished = true
                        break
                    }
                    step.chunks.append(chunk)
                    step.byteCount += chunk.count
                }
            } catch {
                guard step.byteCount > 0 else {
                    finished = true
                    throw error
                }
                failure = error
            }
            return step.byteCount > 0 ? step : nil
        }
    }
}

/// Chunks gathered into one step of ``ChunkSteps``.
struct ChunkStep<Chunk: DataProtocol> {
    /// The chunks, in order, as they arrived.
    var chunks: [Chunk] = []
    /// Their bytes in all.
    var byteCount = 0

    /// The bytes in one array (a copy, for writers that take contiguous bytes).
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        for chunk in chunks { bytes.append(contentsOf: chunk) }
        return bytes
    }
}
