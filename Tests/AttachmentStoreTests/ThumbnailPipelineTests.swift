@testable import AttachmentStore
import Foundation
import CatalogSQL
import Testing
import TestSupport

@Suite("Thumbnail pipeline", .timeLimit(.minutes(2)))
struct ThumbnailPipelineTests {
    /// A store that makes no thumbnails on its own, with `renders` render slots.
    static func fixture(renders: Int = 2) async throws -> StoreFixture {
        var configuration = AttachmentStore.Configuration()
        configuration.thumbnails.generateAfterImport = false
        configuration.thumbnails.maximumConcurrentRenders = renders
        return try await StoreFixture(configuration: configuration)
    }

    @Test("100 concurrent requests for one thumbnail run libvips once")
    func concurrentRequestsShareOneRender() async throws {
        let fixture = try await Self.fixture()
        let note = try await fixture.store.createNote(title: "coalesce")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/seed-3.7mb.jpg"))
        let thumbnails = try await withThrowingTaskGroup(of: Thumbnail.self) { group in
            for _ in 0..<100 { group.addTask { try await fixture.store.thumbnail(for: photo.id) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(thumbnails.count == 100)
        #expect(Set(thumbnails.map(\.data)).count == 1)
        let statistics = fixture.store.thumbnailStatistics
        #expect(statistics.rendersStarted == 1)
        #expect(statistics.rendersFinished == 1)
        #expect(statistics.requests == 100)
        #expect(statistics.coalesced + statistics.memoryHits == 99)
    }

    @Test("cancelling every waiter cancels the job: queued jobs never render")
    func cancellingAllWaitersCancelsQueuedJobs() async throws {
        let fixture = try await Self.fixture(renders: 1)
        let store = fixture.store
        let note = try await store.createNote(title: "cancel")
        var queued: [AttachmentID] = []
        for photo in try Corpus.files(in: "fifty").prefix(6) { queued.append(try await store.addAttachment(to: note.id, fromFile: photo).id) }

        // The test holds the only render slot, so every request below waits in the queue.
        let scheduler = store.thumbnails.scheduler
        try await scheduler.acquire(id: .max, urgent: true)
        // Two waiters for each of six images.
        let waiters = queued.flatMap { id in (0..<2).map { _ in Task { try await store.thumbnail(for: id) } } }
        while scheduler.queueDepth < 6 { try await Task.sleep(for: .milliseconds(5)) }
        waiters.forEach { $0.cancel() }
        for waiter in waiters { _ = await waiter.result }
        scheduler.release()
        await store.waitForBackgroundWork()

        let statistics = store.thumbnailStatistics
        // Six queued jobs lost all their waiters (a waiter that arrived late may have made and
        // cancelled one more job of its own); none of them rendered.
        #expect(statistics.jobsCancelled >= 6)
        #expect(statistics.rendersStarted == 0)
        #expect(statistics.jobsInFlight == 0)
        #expect(statistics.queueDepth == 0)
        #expect(try await store.thumbnailCacheUsage().files == 0)
    }

    @Test("cancelling the only waiter of a running render stops it inside libvips")
    func cancellingARunningRenderStopsIt() async throws {
        let fixture = try await Self.fixture(renders: 1)
        let note = try await fixture.store.createNote(title: "cancel running")
        let big = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/large-16mb.jpg"))
        let request = Task { try await fixture.store.thumbnail(for: big.id, maxPixelSize: 4096) }
        while fixture.store.thumbnailStatistics.rendersStarted == 0 { try await Task.sleep(for: .milliseconds(2)) }
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        while fixture.store.thumbnailStatistics.jobsInFlight > 0 { try await Task.sleep(for: .milliseconds(5)) }
        let statistics = fixture.store.thumbnailStatistics
        #expect(statistics.jobsCancelled == 1)
        #expect(statistics.rendersStarted == 1)
        #expect(statistics.rendersFinished == 0)
        #expect(try await fixture.store.thumbnailCacheUsage().files == 0)
    }

    @Test("visible requests are rendered before queued prefetches")
    func visibleGoesBeforePrefetch() async throws {
        let fixture = try await Self.fixture(renders: 1)
        let store = fixture.store
        let note = try await store.createNote(title: "priority")
        let files = try Corpus.files(in: "fifty").prefix(4)
        var photos = [try await store.addAttachment(to: note.id, fromFile: files.first!)]
        for photo in files.dropFirst() { photos.append(try await store.addAttachment(to: note.id, fromFile: photo)) }

        // The test holds the only render slot, so the queue's order decides what runs next.
        let scheduler = store.thumbnails.scheduler
        try await scheduler.acquire(id: .max - 1, urgent: true)
        for photo in photos.prefix(3) { store.prefetchThumbnail(for: photo) }
        while scheduler.queueDepth < 3 { try await Task.sleep(for: .milliseconds(5)) }
        let visible = Task { try await store.thumbnail(for: photos[3].id) }
        while scheduler.queueDepth < 4 { try await Task.sleep(for: .milliseconds(5)) }
        // A second visible waiter behind it takes the slot back as soon as the visible render ends.
        let holdAgain = Task { try await scheduler.acquire(id: .max, urgent: true) }
        while scheduler.queueDepth < 5 { try await Task.sleep(for: .milliseconds(5)) }
        scheduler.release()

        _ = try await visible.value
        try await holdAgain.value
        let statistics = store.thumbnailStatistics
        #expect(statistics.rendersStarted == 1)
        #expect(statistics.rendersFinished == 1)
        #expect(statistics.queueDepth == 3)
        scheduler.release()
        await store.waitForBackgroundWork()
        #expect(store.thumbnailStatistics.rendersFinished == 4)
    }

    @Test("a second request is served from memory, a new store value from disk")
    func cachesInMemoryAndOnDisk() async throws {
        let fixture = try await Self.fixture()
        let note = try await fixture.store.createNote(title: "caches")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"))
        let first = try await fixture.store.thumbnail(for: photo.id)
        let second = try await fixture.store.thumbnail(for: photo.id)
        #expect(first == second)
        #expect(fixture.store.thumbnailStatistics.memoryHits == 1)

        let reopened = try await fixture.reopen()
        let third = try await reopened.thumbnail(for: photo.id)
        #expect(third == first)
        #expect(reopened.thumbnailStatistics.diskHits == 1)
        #expect(reopened.thumbnailStatistics.rendersStarted == 0)

        try await reopened.clearThumbnailCache()
        #expect(try await reopened.thumbnailCacheUsage().files == 0)
        #expect(try await reopened.thumbnail(for: photo.id) == first, "derived data is made again")
    }

    @Test("replacing an attachment's data gives the new picture's thumbnail on the next request")
    func replaceInvalidatesThumbnail() async throws {
        let fixture = try await Self.fixture()
        let note = try await fixture.store.createNote(title: "replace")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"))
        let before = try await fixture.store.thumbnail(for: photo.id)
        _ = try await fixture.store.replaceAttachmentData(photo.id, fromFile: Corpus.file("special/orientation-6.jpg"))
        let after = try await fixture.store.thumbnail(for: photo.id)
        #expect(after != before)
        #expect(after.height == 200 && after.width < 200, "the new picture is portrait")
        #expect(before.width == 200 && before.height < 200)
    }

    @Test("adding an image makes its default thumbnail in the background")
    func thumbnailAfterImport() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "background")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("good/Dune.jpg"))
        _ = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("bad/text.png"))
        await fixture.store.waitForBackgroundWork()
        #expect(try await fixture.store.thumbnailCacheUsage().files == 1)
        _ = try await fixture.store.thumbnail(for: photo.id)
        #expect(fixture.store.thumbnailStatistics.rendersStarted == 1)
    }

    @Test("non-images, remote blobs, damaged images and bad sizes are typed errors, and the store stays usable")
    func typedErrors() async throws {
        let fixture = try await Self.fixture()
        let store = fixture.store
        let note = try await store.createNote(title: "errors")
        let text = try await store.addAttachment(to: note.id, fromFile: Corpus.file("bad/text.png"))
        let truncated = try await store.addAttachment(to: note.id, fromFile: Corpus.file("bad/truncated.jpg"))
        let bomb = try await store.addAttachment(to: note.id, fromFile: Corpus.file("bad/bomb.png"))
        let photo = try await store.addAttachment(to: note.id, fromFile: Corpus.file("good/Aqua.jpg"))

        await #expect(throws: AttachmentStore.Error.notAnImage(text.id)) { try await store.thumbnail(for: text.id) }
        await #expect(throws: AttachmentStore.Error.self) { try await store.thumbnail(for: truncated.id) }
        await #expect(throws: AttachmentStore.Error.self) { try await store.thumbnail(for: bomb.id) }
        await #expect(throws: AttachmentStore.Error.invalidArgument("thumbnail size 0 is outside 1...4096")) {
            try await store.thumbnail(for: photo.id, maxPixelSize: 0)
        }
        try await store.catalog.write { db in
            try db.execute("UPDATE blob SET state = 'remote' WHERE hash = ?", [.text(photo.blobHash.rawValue)])
        }
        await #expect(throws: AttachmentStore.Error.notAvailableLocally(photo.id)) { try await store.thumbnail(for: photo.id) }
        try await store.catalog.write { db in
            try db.execute("UPDATE blob SET state = 'present' WHERE hash = ?", [.text(photo.blobHash.rawValue)])
        }
        #expect(try await store.thumbnail(for: photo.id).width == 200)
    }

    @Test("the display image is upright and at most 2048 px")
    func displayImage() async throws {
        let fixture = try await Self.fixture()
        let note = try await fixture.store.createNote(title: "display")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/large-16mb.jpg"))
        let display = try await fixture.store.displayImage(for: photo.id)
        #expect(display.width == 2048)
        #expect(display.mediaType == "image/jpeg")
    }
}
