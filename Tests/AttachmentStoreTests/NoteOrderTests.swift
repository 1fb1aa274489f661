@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Lists of notes in each ``NoteOrder``: what each order means, that paging by cursor gives the
/// whole list exactly once in every order, and that each is read off its own index.
@Suite("Notes listed in order", .timeLimit(.minutes(3)))
struct NoteOrderTests {
    @Test("sorted by title, notes follow names as people sort them: any case or accent, numbers by value, untitled last")
    func titleOrder() async throws {
        let fixture = try await StoreFixture()
        let titles = ["banana", "Trip 10", "", "Zebra", "éclair", "Apple", "Trip 9", "eclair 2", "  ", "trip 009b", "Ｆull width"]
        for title in titles { _ = try await fixture.store.createNote(title: title) }
        let listed = try await fixture.store.notes(order: .title).map(\.title)
        #expect(listed.prefix(9) == ["Apple", "banana", "éclair", "eclair 2", "Ｆull width", "Trip 9", "trip 009b", "Trip 10", "Zebra"])
        #expect(Set(listed.suffix(2)) == ["", "  "], "untitled notes last: \(listed)")
    }

    @Test("sorted by creation, the newest note comes first and an edit does not move it; by last change it does")
    func creationOrder() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        var made: [Note] = []
        for title in ["first", "second", "third"] {
            made.append(try await store.createNote(title: title))
            try await Task.sleep(for: .milliseconds(3))  // distinct creation times, so the order is the test's
        }
        _ = try await store.updateNote(made[0].id, body: "edited last")
        #expect(try await store.notes(order: .created).map(\.title) == ["third", "second", "first"])
        #expect(try await store.notes(order: .updated).map(\.title) == ["first", "third", "second"])
        #expect(try await store.notes().map(\.title) == ["first", "third", "second"], "last change first unless told otherwise")
    }

    @Test("pages read by cursor give exactly the whole list in every order, searched or not, however titles and times tie",
          arguments: NoteOrder.allCases)
    func cursorPagesInEveryOrder(order: NoteOrder) async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        for index in 0..<31 {
            _ = try await store.createNote(title: ["Same", "Trip \(index)", "", "Garden \(index % 3)"][index % 4],
                                           body: index.isMultiple(of: 2) ? "garden" : "city")
        }
        for text in [nil, "garden"] as [String?] {
            let everything = try await store.notes(matching: text, order: order, limit: 100)
            var byCursor: [Note] = []
            var page = try await store.notes(matching: text, order: order, limit: 4)
            while !page.isEmpty {
                byCursor += page
                let cursor = try #require(NoteCursor(NoteCursor(after: page.last!, order: order).description), "its text form reads back")
                #expect(cursor.order == order)
                page = try await store.notes(matching: text, limit: 4, after: cursor)
            }
            #expect(byCursor.map(\.id) == everything.map(\.id), "\(order), text \(text ?? "none")")
            #expect(Set(byCursor.map(\.id)).count == byCursor.count, "no note twice")
        }
    }

    @Test("a note renamed while someone pages by title moves to its new place: every other note is shown once, in order")
    func renameWhilePaging() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        for index in 0..<12 { _ = try await store.createNote(title: String(format: "Note %02d", index)) }
        let before = try await store.notes(order: .title).map(\.title)
        let first = try await store.notes(order: .title, limit: 5)
        _ = try await store.updateNote(first[1].id, title: "Zulu")  // shown already; moves after the cursor
        let later = try await store.notes(limit: 5, after: NoteCursor(after: first.last!, order: .title))
        let rest = try await store.notes(limit: 50, after: NoteCursor(after: later.last!, order: .title))
        #expect((later + rest).map(\.title) == Array(before.dropFirst(5)) + ["Zulu"])
    }

    @Test("in SQLite a page by creation or by title, by cursor or not, is read off its index in order: no sort of the whole table")
    func orderedPagesReadTheirIndex() async throws {
        let fixture = try await StoreFixture()
        let database = fixture.store.catalog.database
        guard database.dialect == .sqlite else { return }
        let cursors: [NoteCursor] = [
            try #require(NoteCursor("c1790000000000_3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6")),
            try #require(NoteCursor("tMGdhcmRlbg_3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6")),
        ]
        for cursor in cursors {
            let listing = NoteListing(cursor.order)
            let index = cursor.order == .created ? "note_on_createdAt_id" : "note_on_titleKey_id"
            let place = listing.value(cursor.place)
            let order = "ORDER BY \(listing.column) \(listing.direction), id LIMIT 50 OFFSET 0"
            for (sql, arguments) in [
                ("SELECT * FROM note WHERE trashedAt IS NULL \(order)", []),
                ("SELECT * FROM note WHERE trashedAt IS NULL AND \(listing.column) \(listing.from) ? AND (\(listing.column) \(listing.beyond) ? OR id > ?) \(order)",
                 [place, place, .text(cursor.id.rawValue)]),
            ] as [(String, [SQLValue])] {
                let plan = try await database.read { db in try db.query("EXPLAIN QUERY PLAN " + sql, arguments).map { try $0.requiredString("detail") } }
                #expect(plan.contains { $0.contains(index) }, "\(plan)")
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            }
        }
    }
}
