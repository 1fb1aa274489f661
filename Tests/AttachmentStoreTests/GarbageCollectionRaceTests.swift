@testable import AttachmentStore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `gc --grace 0` running beside ingests in other processes (found by `make soak`: a
/// replacement failed with "No such file or directory" when `gc` removed its temporary file in
/// the instant between the ingest creating the file and locking it).
@Suite("Garbage collection beside live ingests")
struct GarbageCollectionRaceTests {
    @Test("gc with no grace leaves a file still being created alone and removes unlocked ones at once")
    func fileBeingCreatedSurvivesUntilItsGrace() async throws {
        let fixture = try await StoreFixture()
        let temporary = fixture.storeURL.appending(path: "tmp")
        // A file made but not yet locked and named (file systems without unnamed files).
        let starting = temporary.appending(path: "ingest-starting.part" + POSIXFile.unlockedCreationSuffix)
        try Data().write(to: starting)
        // A crashed ingest: bytes, no lock.
        let dead = temporary.appending(path: "ingest-dead.part")
        try Data(repeating: 7, count: 4096).write(to: dead)
        // An ingest killed after its file was named and locked, before its first byte.
        let killedEarly = temporary.appending(path: "ingest-killed-early.part")
        try Data().write(to: killedEarly)
        // A crash while creating, long ago: two minutes old.
        let stale = temporary.appending(path: "ingest-stale.part" + POSIXFile.unlockedCreationSuffix)
        try Data().write(to: stale)
        let twoMinutesAgo = Date().addingTimeInterval(-120)
        try FileManager.default.setAttributes([.modificationDate: twoMinutesAgo], ofItemAtPath: stale.path(percentEncoded: false))

        let report = try await fixture.store.collectGarbage(olderThan: .zero)
        #expect(FileManager.default.fileExists(atPath: starting.path(percentEncoded: false)), "the file being created stays")
        for gone in [dead, killedEarly, stale] {
            #expect(!FileManager.default.fileExists(atPath: gone.path(percentEncoded: false)), "\(gone.lastPathComponent) is removed")
        }
        #expect(report.temporaryFiles == 3)
        #expect(report.keptInGracePeriod == 1)
    }

    @Test("a locked temporary file survives gc with no grace, and its name cannot be taken twice")
    func lockedTemporaryFilesSurviveGarbageCollection() async throws {
        let fixture = try await StoreFixture()
        let temporary = fixture.storeURL.appending(path: "tmp").path(percentEncoded: false)
        let fd = try POSIXFile.createLocked(named: "verify-in-progress", in: temporary)
        defer { close(fd) }
        let bytes: [UInt8] = Array(repeating: 1, count: 1000)
        try bytes.withUnsafeBytes { try POSIXFile.writeAll(fd, $0) }
        let report = try await fixture.store.collectGarbage(olderThan: .zero)
        #expect(report.temporaryFiles == 0)
        #expect(FileManager.default.fileExists(atPath: temporary + "/verify-in-progress"))
        #expect((try? POSIXFile.createLocked(named: "verify-in-progress", in: temporary)) == nil, "the name is taken")
    }

    @Test("an ingest's temporary file is never seen unlocked while its ingest lives")
    func ingestFilesAreLockedFromTheirFirstInstant() async throws {
        let fixture = try await StoreFixture()
        let temporary = fixture.storeURL.appending(path: "tmp").path(percentEncoded: false)
        let creating = Atomic<Bool>(true)
        let started = Atomic<Bool>(false)
        // Another "process" looking at tmp/ the way gc does, as fast as it can.
        let watcher = Task {
            try await BlockingPool.run { () -> (looked: Int, unlocked: Set<String>) in
                var (looked, unlocked) = (0, Set<String>())
                started.store(true, ordering: .releasing)
                // One last look after creation ends, when every writer is still alive.
                var lastLook = false
                while !lastLook {
                    lastLook = !creating.load(ordering: .acquiring)
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] {
                        let fd = open(temporary + "/" + name, O_RDONLY | O_CLOEXEC)
                        guard fd >= 0 else { continue }
                        looked += 1
                        if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlocked.insert(name) }
                        close(fd)
                    }
                }
                return (looked, unlocked)
            }
        }
        while !started.load(ordering: .acquiring) { await Task.yield() }
        // Before unnamed files, about one run in three saw a file between creation and lock.
        var writers: [BlobWriter] = []
        for _ in 0..<1000 {
            writers.append(try BlobWriter(temporaryDirectory: temporary, storePath: fixture.storeURL.path(percentEncoded: false)))
            await Task.yield()
        }
        creating.store(false, ordering: .releasing)
        let (looked, unlocked) = try await watcher.value
        #expect(looked >= 1000)
        #expect(unlocked.isEmpty, "seen unlocked: \(unlocked.prefix(5))")
        for writer in writers { writer.abort() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    @Test("an ingest racing gc with no grace never loses its temporary file")
    func ingestsRacingGarbageCollectionAllSucceed() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let note = try await store.createNote(title: "race")
        let gc = Task {
            var runs = 0
            while !Task.isCancelled {
                do {
                    _ = try await store.collectGarbage(olderThan: .zero)
                } catch is CancellationError {
                    break
                }
                runs += 1
            }
            return runs
        }
        for index in 0..<200 {
            let bytes = Array("attachment \(index) ".utf8) + (0..<64).map { _ in UInt8.random(in: 0...255) }
            _ = try await store.addAttachment(to: note.id, data: Data(bytes), filename: "\(index).bin")
        }
        gc.cancel()
        #expect(try await gc.value > 0)
        #expect(try await store.attachments(of: note.id).count == 200)
        #expect(try await store.verify().isClean)
    }

    @Test("a peer download resuming its partial file and gc with no grace, raced 300 times: the download always holds the file at its name")
    func resumedDownloadAndGarbageCollectionRace() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let hash = try #require(BlobHash(rawValue: String(repeating: "ab", count: 32)))
        let partial = fixture.storeURL.appending(path: "tmp/fetch-\(hash.rawValue).part").path(percentEncoded: false)
        var resumed = 0
        for round in 0..<300 {
            // A transfer cut earlier left 1,000 bytes, an hour ago: gc may remove it unless a
            // download holds it.
            try Data(repeating: UInt8(round % 251), count: 1000).write(to: URL(filePath: partial))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: partial)
            async let collected = store.collectGarbage(olderThan: .zero)
            let download = try await store.blobDownload(for: hash, byteCount: 10_000)
            _ = try await collected
            try await download.append(Data(repeating: 1, count: 500))
            // Whoever won, the download's bytes are in the file named for it, not an unlinked one.
            let size = (try FileManager.default.attributesOfItem(atPath: partial)[.size] as? NSNumber)?.int64Value
            #expect(size == download.resumeOffset + 500, "round \(round)")
            if download.resumeOffset == 1000 { resumed += 1 }
            download.close()
            try FileManager.default.removeItem(atPath: partial)
        }
        #expect(resumed > 0, "some rounds resumed before gc came")
    }

    @Test("a second download of a blob whose partial another download holds is refused, and the first goes on")
    func secondDownloadOfOneBlobIsRefused() async throws {
        let fixture = try await StoreFixture()
        let hash = try #require(BlobHash(rawValue: String(repeating: "cd", count: 32)))
        let first = try await fixture.store.blobDownload(for: hash, byteCount: 1000)
        defer { first.close() }
        await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.blobDownload(for: hash, byteCount: 1000) }
        try await first.append(Data(repeating: 2, count: 100))
        #expect(first.receivedBytes == 100)
    }
}
