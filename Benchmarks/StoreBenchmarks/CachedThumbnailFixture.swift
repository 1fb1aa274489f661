import AttachmentStore
import Foundation

/// A store holding the seed photo, with its 200 px thumbnail already in the memory cache.
final class CachedThumbnailFixture: BenchmarkFixture {
    let scratch: ScratchDirectory
    let store: AttachmentStore
    let attachment: Attachment

    private init(scratch: ScratchDirectory, store: AttachmentStore, attachment: Attachment) {
        self.scratch = scratch
        self.store = store
        self.attachment = attachment
    }

    /// Imports the seed, renders its thumbnail once, and checks that the next request is a memory hit.
    static func make() async throws -> CachedThumbnailFixture {
        let seed = try BenchmarkCorpus.file("special/seed-3.7mb.jpg")
        return try await ScratchDirectory.make { scratch in
            let store = try await AttachmentStore.makeForBenchmark(in: scratch)
            let note = try await store.createNote(title: "cached thumbnail")
            let attachment = try await store.addAttachment(to: note.id, fromFile: seed)
            _ = try await store.thumbnail(for: attachment.id)
            let hits = store.thumbnailStatistics.memoryHits
            _ = try await store.thumbnail(for: attachment.id)
            guard store.thumbnailStatistics.memoryHits == hits + 1 else {
                throw SetupFailure("the second thumbnail request was not answered from the memory cache")
            }
            return CachedThumbnailFixture(scratch: scratch, store: store, attachment: attachment)
        }
    }

    func tearDown() async throws {
        try scratch.remove()
    }
}
