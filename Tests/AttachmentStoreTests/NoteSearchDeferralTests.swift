@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// A peer's page indexes the notes it adds for search once it is applied (``NoteSearchDeferral``,
/// SQLite), on the suite's catalog: what the page adds, edits and deletes is found exactly as
/// if each change had been indexed on its own, and a page that names one note twice — which a
/// hostile peer may send — leaves the search index whole.
@Suite("Search indexing of a peer's page", .timeLimit(.minutes(3)))
struct NoteSearchDeferralTests {
    static func stamp(_ milliseconds: Int64) -> ClockStamp {
        ClockStamp(rawValue: String(format: "%013lld-000000-searchpeer", milliseconds))
    }

    static func note(_ number: Int, _ body: String, at milliseconds: Int64) -> SyncChange {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let id = NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", number))
        return .note(.init(Note(id: id, title: "Note \(number)", body: body, createdAt: date, updatedAt: date), clock: stamp(milliseconds)))
    }

    static func titles(_ store: AttachmentStore, matching text: String) async throws -> Set<String> {
        Set(try await store.notes(matching: text).map(\.title))
    }

    @Test("a page's new notes are found, and a note it adds then edits, or adds then deletes, leaves the index whole")
    func pageIsIndexedOnceAndWhole() async throws {
        let fixture = try await StoreFixture("search-deferral")
        let store = fixture.store
        let base: Int64 = 1_700_000_000_000
        _ = try await store.apply(SyncBatch(peerID: "search-peer", changes: [Self.note(1, "harbour crane", at: base)], nextSequence: 1, hasMore: false))
        let local = try await store.createNote(title: "Local", body: "lighthouse")

        let hostilePage: [SyncChange] = [
            Self.note(2, "first draft marigold", at: base + 10),
            Self.note(2, "second draft sunflower", at: base + 20),  // the same note again, newer
            Self.note(3, "doomed tulip", at: base + 30),
            .tombstone(.init(entity: "note", id: String(format: "00000000-0000-4000-8000-%012d", 3), clock: Self.stamp(base + 40))),
            Self.note(1, "harbour crane at dusk", at: base + 50),  // a note indexed before this page, edited
            Self.note(4, "orchard", at: base + 60),
        ]
        let report = try await store.apply(SyncBatch(peerID: "search-peer", changes: hostilePage, nextSequence: 7, hasMore: false))
        #expect(report.invalid == 0)

        #expect(try await Self.titles(store, matching: "sunflower") == ["Note 2"])
        #expect(try await Self.titles(store, matching: "marigold").isEmpty, "the replaced text of a note added in the page is not found")
        #expect(try await Self.titles(store, matching: "tulip").isEmpty, "a note added and deleted in the page is not found")
        #expect(try await Self.titles(store, matching: "dusk") == ["Note 1"])
        #expect(try await Self.titles(store, matching: "orchard") == ["Note 4"])
        #expect(try await Self.titles(store, matching: "lighthouse") == [local.title])

        // The index agrees with the notes (FTS5's own integrity check, in `verify`), and indexes
        // one at a time again once the page is done.
        #expect(try await store.catalog.integrityProblems().isEmpty)
        _ = try await store.updateNote(local.id, body: "lantern")
        let later = try await store.createNote(title: "Later", body: "quay")
        #expect(try await Self.titles(store, matching: "lantern") == ["Local"])
        #expect(try await Self.titles(store, matching: "quay") == [later.title])
        if store.catalog.database.dialect == .sqlite {
            let pending = try await store.catalog.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM noteSearchDeferred")?.int64("n") ?? 0 }
            #expect(pending == 0)
        }
        #expect(try await store.verify().isClean)
    }
}
