import AttachmentStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite("Storage budget: eviction of originals a peer holds, trimmed caches, states", .timeLimit(.minutes(3)))
struct StorageBudgetTests {
    static let photos = ["good/Dune.jpg", "good/Aqua.jpg", "good/Blinds.jpg", "good/Garden.jpg"]

    /// A peer holding the first two photos, and a store with all four that may fetch from it.
    static func stores() async throws -> (peer: StoreFixture, store: StoreFixture, attachments: [StoredAttachment]) {
        let peer = try await StoreFixture("peer")
        let held = try await peer.store.createNote(title: "held")
        for name in photos.prefix(2) { _ = try await peer.store.addAttachment(to: held.id, fromFile: try Corpus.file(name)) }
        var configuration = AttachmentStore.Configuration()
        configuration.remoteBlobSource = InProcessPeer(peer: peer.store)
        configuration.evictionGrace = 0
        let fixture = try await StoreFixture("budget", configuration: configuration)
        let note = try await fixture.store.createNote(title: "all")
        var attachments: [StoredAttachment] = []
        for name in photos { attachments.append(try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file(name))) }
        await fixture.store.waitForBackgroundWork()
        return (peer, fixture, attachments)
    }

    @Test("a budget of nothing evicts every original a peer holds, keeps the only copies, and each evicted one reads back byte-identical")
    func evictsOnlyWhatAPeerHolds() async throws {
        let (peer, fixture, attachments) = try await Self.stores()
        _ = peer
        let store = fixture.store
        try await store.setStorageBudget(StorageBudget(maxLocalBytes: 0))
        #expect(try await store.storageBudget().maxLocalBytes == 0)
        let report = try await store.enforceStorageBudget()

        if store.blobPlacement == .files {
            #expect(report.originalsEvicted == 2)
            #expect(report.onlyCopiesKept == 2)
            #expect(report.localBytesAfter == attachments[2].byteCount + attachments[3].byteCount)
            let states = try await store.allAttachments().map(\.state)
            #expect(states == [StoredAttachment.State.evicted, .evicted, .present, .present])
            #expect(try await store.attachments(in: .evicted).map(\.id) == [attachments[0].id, attachments[1].id])
            #expect(try await store.statistics().evictedBlobs == 2)
            #expect(try await store.verify().isClean, "evicted originals are not damage")
        } else {
            // Originals kept in an object store: the local copies are the budget's to trim.
            #expect(report.localCopiesRemoved == 4)
            #expect(report.localBytesAfter == 0)
        }
        for (attachment, name) in zip(attachments, Self.photos) {
            #expect(try await store.original(of: attachment.id).data() == (try Data(contentsOf: try Corpus.file(name))), "\(name)")
        }
        #expect(try await store.allAttachments().allSatisfy { $0.state == StoredAttachment.State.present }, "reading brought every one back")
        #expect(try await store.verify().isClean)
    }

    @Test("the least recently read original goes first")
    func leastRecentlyReadFirst() async throws {
        let (peer, fixture, attachments) = try await Self.stores()
        _ = peer
        let store = fixture.store
        guard store.blobPlacement == .files else { return }
        try await Task.sleep(for: .milliseconds(20))
        _ = try await store.original(of: attachments[0].id)  // the older import, read just now
        let keep = attachments[0].byteCount + attachments[2].byteCount + attachments[3].byteCount
        try await store.setStorageBudget(StorageBudget(maxLocalBytes: keep))
        let report = try await store.enforceStorageBudget()
        #expect(report.originalsEvicted == 1)
        #expect(try await store.attachment(attachments[1].id).state == .evicted)
        #expect(try await store.attachment(attachments[0].id).state == .present)
    }

    @Test("re-hashing, proof samples, backups and background thumbnail renders do not count as reads: eviction keeps the order of real reads")
    func maintenanceIsNotARead() async throws {
        let (peer, fixture, attachments) = try await Self.stores()
        _ = peer
        let store = fixture.store
        guard store.blobPlacement == .files else { return }
        // Last read days ago, oldest first: on a relatime mount any plain read would now set the
        // access time, and the order below would follow whatever read last.
        let paths = attachments.map { Files.blobPath(in: fixture.storeURL, hash: $0.blobHash.rawValue) }
        let now = Int(Date().timeIntervalSince1970)
        let lastReads = (0..<paths.count).map { now - (4 - $0) * 86_400 }
        for (path, seconds) in zip(paths, lastReads) {
            LeastRecentlyReadTests.setLastRead(path, Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        func expectUnread(_ indices: Range<Int>, after step: String) {
            for index in indices {
                var info = stat()
                #expect(stat(paths[index], &info) == 0)
                #expect(info.st_atim.tv_sec == lastReads[index], "\(Self.photos[index]) looks read by \(step)")
            }
        }

        #expect(try await store.verify().isClean)
        expectUnread(0..<4, after: "verify")
        _ = try await store.scrub(upTo: 1 << 40)
        expectUnread(0..<4, after: "a scrub")
        for attachment in attachments.reversed() {
            store.prefetchThumbnail(for: try await store.attachment(attachment.id), maxPixelSize: 97)
        }
        await store.waitForBackgroundWork()
        #expect(store.thumbnailStatistics.rendersFinished >= 4)
        expectUnread(0..<4, after: "background thumbnail renders")
        let backup = try TemporaryDirectory("budget-backup")
        _ = try await store.backup(to: backup.appending("copy"))
        expectUnread(0..<4, after: "a backup")

        // Every original is sampled for a holder; the two the peer holds go, oldest first.
        try await store.setStorageBudget(StorageBudget(maxLocalBytes: 0))
        let report = try await store.enforceStorageBudget()
        #expect(report.originalsEvicted == 2)
        #expect(try await store.allAttachments().map(\.state) == [StoredAttachment.State.evicted, .evicted, .present, .present])
        expectUnread(2..<4, after: "proof samples")
    }

    @Test("an upload of bytes that were evicted makes them present again")
    func uploadAfterEviction() async throws {
        let (peer, fixture, attachments) = try await Self.stores()
        _ = peer
        let store = fixture.store
        guard store.blobPlacement == .files else { return }
        try await store.setStorageBudget(StorageBudget(maxLocalBytes: 0))
        _ = try await store.enforceStorageBudget()
        let again = try await store.addAttachment(to: attachments[0].noteID, fromFile: try Corpus.file(Self.photos[0]))
        #expect(again.state == .present)
        #expect(try await store.attachment(attachments[0].id).state == .present, "the blob is shared")
        #expect(try await store.verify().isClean)
    }

    @Test("without a source that names a holder nothing is evicted, whatever the budget")
    func nothingEvictedWithoutAHolder() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.evictionGrace = 0
        let fixture = try await StoreFixture("alone", configuration: configuration)
        let note = try await fixture.store.createNote(title: "alone")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        try await fixture.store.setStorageBudget(StorageBudget(maxLocalBytes: 0))
        let report = try await fixture.store.enforceStorageBudget()
        guard fixture.store.blobPlacement == .files else { return }
        #expect(report.originalsEvicted == 0)
        #expect(report.onlyCopiesKept == 1)
        #expect(try await fixture.store.attachment(photo.id).state == .present)
    }

    @Test("the thumbnail disk cache is trimmed to its limit, least recently read first")
    func thumbnailCacheTrimmed() async throws {
        let (peer, fixture, attachments) = try await Self.stores()
        _ = peer
        let store = fixture.store
        for attachment in attachments { _ = try await store.thumbnail(for: attachment.id) }
        await store.waitForBackgroundWork()
        let before = try await store.statistics()
        #expect(before.thumbnailCacheFiles >= 4)
        try await store.setStorageBudget(StorageBudget(maxThumbnailCacheBytes: 1))
        let report = try await store.enforceStorageBudget()
        #expect(report.thumbnailsRemoved == before.thumbnailCacheFiles)
        #expect(try await store.statistics().thumbnailCacheFiles == 0)
        #expect(try await store.thumbnail(for: attachments[0].id).height > 0, "a trimmed thumbnail is rendered again")
    }

    @Test("a negative limit is refused and the budget is unchanged")
    func negativeLimitRefused() async throws {
        let fixture = try await StoreFixture("negative")
        await #expect(throws: AttachmentStore.Error.self) {
            try await fixture.store.setStorageBudget(StorageBudget(maxLocalBytes: -1))
        }
        #expect(try await fixture.store.storageBudget() == StorageBudget())
    }

    @Test("an attachment whose bytes are arriving reports fetching with the bytes so far, and remote once the transfer is cut")
    func fetchingState() async throws {
        let peer = try await StoreFixture("source")
        let note = try await peer.store.createNote(title: "far")
        let photo = try await peer.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        let fixture = try await StoreFixture("sink")
        try await SyncCoreTests.pull(fixture.store, from: peer.store)
        #expect(try await fixture.store.attachment(photo.id).state == .remote)

        let download = try await fixture.store.blobDownload(for: photo.blobHash, byteCount: photo.byteCount)
        try await download.append(Data(repeating: 0, count: 1000))
        let arriving = try await fixture.store.attachment(photo.id)
        #expect(arriving.state == .fetching)
        #expect(arriving.fetchedBytes == 1000)
        #expect(try await fixture.store.attachments(in: .fetching).count == 1)
        download.close()
        #expect(try await fixture.store.attachment(photo.id).state == .remote, "a cut transfer's partial file is not a transfer")
    }
}
