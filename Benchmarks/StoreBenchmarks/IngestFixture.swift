import AttachmentStore
import Foundation

/// A fresh store in a scratch folder and the file imported into it.
final class IngestFixture: BenchmarkFixture {
    let scratch: ScratchDirectory
    let store: AttachmentStore
    /// The file each iteration imports.
    let source: URL
    /// Whether ``prepareSource()`` gives ``source`` new content each time.
    let distinctContent: Bool
    private var generation: UInt64 = 0

    private init(scratch: ScratchDirectory, store: AttachmentStore, source: URL, distinctContent: Bool) {
        self.scratch = scratch
        self.store = store
        self.source = source
        self.distinctContent = distinctContent
    }

    /// A store with thumbnails off, and either the corpus seed itself or a private copy of it
    /// with 8 more bytes at the end (still a valid JPEG: decoders stop at its end marker).
    static func make(distinctContent: Bool) async throws -> IngestFixture {
        let seed = try BenchmarkCorpus.file("special/seed-3.7mb.jpg")
        return try await ScratchDirectory.make { scratch in
            let store = try await AttachmentStore.makeForBenchmark(in: scratch)
            var source = seed
            if distinctContent {
                source = scratch.path("source.jpg")
                try (try Data(contentsOf: seed) + Data(count: 8)).write(to: source)
            } else {
                // Stored once here, so that every iteration, the first included, finds the blob.
                _ = try await store.addAttachment(to: try await store.createNote(title: "setup").id, fromFile: seed)
            }
            return IngestFixture(scratch: scratch, store: store, source: source, distinctContent: distinctContent)
        }
    }

    /// Gives ``source`` content the store has not seen yet (when ``distinctContent``): writes a
    /// new number into its last 8 bytes. The file stays in the page cache.
    func prepareSource() throws {
        guard distinctContent else { return }
        generation += 1
        let handle = try FileHandle(forUpdating: source)
        defer { try? handle.close() }
        try handle.seek(toOffset: try handle.seekToEnd() - 8)
        try handle.write(contentsOf: withUnsafeBytes(of: generation.littleEndian) { Data($0) })
    }

    func tearDown() async throws {
        try scratch.remove()
    }
}
