@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// `gc --grace 0` running beside ingests in other processes (found by `make soak`: a
/// replacement failed with "No such file or directory" when `gc` removed its temporary file in
/// the instant between the ingest creating the file and locking it).
@Suite("Garbage collection beside live ingests")
struct GarbageCollectionRaceTests {
    @Test("gc with no grace leaves an empty unlocked temporary file alone and removes dead ones")
    func emptyTemporaryFileSurvivesUntilItsGrace() async throws {
        let fixture = try await StoreFixture()
        let temporary = fixture.storeURL.appending(path: "tmp")
        // An ingest that has created its file but not yet locked it: empty, unlocked, new.
        let starting = temporary.appending(path: "ingest-starting.part")
        try Data().write(to: starting)
        // A crashed ingest: bytes, no lock.
        let dead = temporary.appending(path: "ingest-dead.part")
        try Data(repeating: 7, count: 4096).write(to: dead)
        // A crash between creating and locking, long ago: empty, unlocked, two minutes old.
        let stale = temporary.appending(path: "ingest-stale.part")
        try Data().write(to: stale)
        let twoMinutesAgo = Date().addingTimeInterval(-120)
        try FileManager.default.setAttributes([.modificationDate: twoMinutesAgo], ofItemAtPath: stale.path(percentEncoded: false))

        let report = try await fixture.store.collectGarbage(olderThan: .zero)
        #expect(FileManager.default.fileExists(atPath: starting.path(percentEncoded: false)), "the starting ingest keeps its file")
        #expect(!FileManager.default.fileExists(atPath: dead.path(percentEncoded: false)))
        #expect(!FileManager.default.fileExists(atPath: stale.path(percentEncoded: false)))
        #expect(report.temporaryFiles == 2)
        #expect(report.keptInGracePeriod == 1)
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
}
