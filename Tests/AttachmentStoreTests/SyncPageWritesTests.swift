@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// A peer's page writes its new rows several to a statement (``SyncPageWrites``), on the
/// suite's catalog: whatever a page holds — the same note or attachment twice, older or
/// newer, deletions of what it just added, attachments sharing content, notes it never sends —
/// the catalog ends exactly as when each change is applied on its own, and `verify` finds it clean.
@Suite("A peer's page written in batches", .timeLimit(.minutes(3)))
struct SyncPageWritesTests {
    static let peer = "batch-peer"
    static let base: Int64 = 1_700_000_000_000

    static func stamp(_ milliseconds: Int64) -> ClockStamp {
        ClockStamp(rawValue: String(format: "%013lld-000000-\(peer)", milliseconds))
    }

    static func noteID(_ number: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", number) }
    static func attachmentID(_ number: Int) -> String { String(format: "00000000-0000-4000-9000-%012d", number) }
    static func hash(_ number: Int) -> BlobHash { BlobHash(rawValue: String(repeating: String(number % 10), count: 64))! }

    /// A hostile page: note changes and deletions of notes and attachments first (a page
    /// applies its attachment records after those, so applied one by one in this order they
    /// mean the same), then attachment records; ids drawn from small sets so that most appear
    /// more than once.
    static func page(seed: UInt64) -> [SyncChange] {
        var random = SplitMix(seed: seed)
        var changes: [SyncChange] = []
        var clock = base
        func next() -> Int64 { clock += Int64.random(in: -40...60, using: &random); return max(base, clock) }
        for _ in 0..<200 {
            let number = Int.random(in: 0..<90, using: &random)
            let at = next()
            if Int.random(in: 0..<10, using: &random) == 0 {
                changes.append(.tombstone(.init(entity: "attachment", id: attachmentID(Int.random(in: 0..<150, using: &random)), clock: stamp(at))))
            } else if Int.random(in: 0..<12, using: &random) == 0 {
                changes.append(.tombstone(.init(entity: "note", id: noteID(number), clock: stamp(at))))
            } else {
                let date = Date(timeIntervalSince1970: Double(at) / 1000)
                let note = Note(id: NoteID(rawValue: noteID(number)), title: "Trip \(number) take \(at % 1000)", body: "body \(at)",
                                createdAt: date, updatedAt: date)
                changes.append(.note(.init(note, clock: stamp(at))))
            }
        }
        for _ in 0..<220 {
            let number = Int.random(in: 0..<150, using: &random)
            let at = next()
            let date = Date(timeIntervalSince1970: Double(at) / 1000)
            let blob = Int.random(in: 0..<10, using: &random)
            let attachment = Attachment(id: AttachmentID(rawValue: attachmentID(number)), noteID: NoteID(rawValue: noteID(Int.random(in: 0..<120, using: &random))),
                                        position: Int.random(in: 0..<5, using: &random), blobHash: hash(blob), byteCount: Int64(1_000 + blob),
                                        mediaType: "image/jpeg", filename: "IMG_\(number).JPG", image: .init(width: 40, height: 30, orientation: 1),
                                        metadata: [:], createdAt: date, updatedAt: date, state: .remote)
            changes.append(.attachment(.init(attachment, clock: stamp(at))))
        }
        return changes
    }

    /// What a catalog holds of the rows a peer's changes write, in a fixed order (blob rows
    /// without the moment they were made).
    static func contents(of store: AttachmentStore) async throws -> [[SQLValue]] {
        try await store.catalog.read { db in
            let statements = [
                "SELECT id, title, body, createdAt, updatedAt, clock, trashedAt, versions, titleKey FROM note ORDER BY id",
                "SELECT id, noteId, position, blobHash, mediaType, filename, width, height, clock, trashedAt FROM attachment ORDER BY id",
                "SELECT hash, byteCount, state FROM blob ORDER BY hash",
                "SELECT entity, id, clock FROM tombstone ORDER BY entity, id",
            ]
            return try statements.flatMap { try db.query($0, []).map(\.values) }
        }
    }

    @Test("a page leaves the catalog as its changes applied one at a time would", arguments: [1, 2, 3] as [UInt64])
    func pageMatchesChangesAppliedOneByOne(seed: UInt64) async throws {
        let changes = Self.page(seed: seed)
        let whole = try await StoreFixture("page-whole-\(seed)")
        let single = try await StoreFixture("page-single-\(seed)")

        let report = try await whole.store.apply(SyncBatch(peerID: Self.peer, changes: changes, nextSequence: Int64(changes.count), hasMore: false),
                                                 pulledFrom: "http://\(Self.peer)")
        #expect(report.invalid == 0)
        for (index, change) in changes.enumerated() {
            _ = try await single.store.apply(SyncBatch(peerID: Self.peer, changes: [change], nextSequence: Int64(index + 1), hasMore: false),
                                             pulledFrom: "http://\(Self.peer)")
        }

        let rows = try await Self.contents(of: whole.store)
        #expect(rows.count > SQLUpsertBatch<NoteRecord>.rowsPerStatement * 2, "the page wrote several statements' worth of rows")
        #expect(rows == (try await Self.contents(of: single.store)))
        #expect(try await whole.store.statistics().notes == (try await single.store.statistics().notes))
        #expect(try await whole.store.verify().isClean)
    }

    @Test("a page moves the store's clock past its latest reading, wherever in the page it is, and never to a refused change's")
    func pageMovesTheClockPastItsLatestValidReading() async throws {
        let fixture = try await StoreFixture("page-clock")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var changes = Self.page(seed: 4)
        // The latest valid reading sits in the middle of the page, on a tombstone; a later one,
        // ten minutes ahead (past the allowed skew), is on a change that is refused.
        let latest = ClockStamp(rawValue: String(format: "%013lld-000042-\(Self.peer)", now + 60_000))
        changes.insert(.tombstone(.init(entity: "note", id: Self.noteID(999), clock: latest)), at: changes.count / 2)
        let refused = ClockStamp(rawValue: String(format: "%013lld-000000-\(Self.peer)", now + 600_000))
        changes.insert(.tombstone(.init(entity: "note", id: Self.noteID(998), clock: refused)), at: 3)

        let checked = fixture.store.check(SyncBatch(peerID: Self.peer, changes: changes, nextSequence: 1, hasMore: false))
        #expect(checked.latestClock == latest)
        #expect(checked.refused.count == 1 && checked.entryCount == changes.count)
        let report = try await fixture.store.apply(checked, pulledFrom: "http://\(Self.peer)")
        #expect(report.invalid == 1)
        let next = fixture.store.clock.tick()
        #expect(next > latest, "a local change after the page is stamped after every reading it applied")
        #expect(next.parts!.milliseconds < now + 600_000, "the refused reading did not move the clock")
    }
}
