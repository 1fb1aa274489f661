@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Searching notes through the catalog's full-text index, on whichever catalog the suite runs
/// (SQLite FTS5, or PostgreSQL's GIN over `tsvector`): every word of the text begins a word of the
/// title or body, in any case; the index follows every insert, edit and delete; and no text a
/// user types reaches the query syntax of either database.
@Suite("Note search")
struct NoteSearchTests {
    static func titles(_ notes: [Note]) -> Set<String> { Set(notes.map(\.title)) }

    static func seeded() async throws -> StoreFixture {
        let fixture = try await StoreFixture()
        let store = fixture.store
        _ = try await store.createNote(title: "Garden", body: "tomatoes and photos of the greenhouse")
        _ = try await store.createNote(title: "City walk", body: "photos of bridges")
        _ = try await store.createNote(title: "Recipes", body: "tomato soup, garden herbs")
        _ = try await store.createNote(title: "été à Lyon", body: "marché du dimanche")
        _ = try await store.createNote(title: "Invoices 2024", body: "INV-100 paid; INV-205 open")
        return fixture
    }

    @Test("a word finds the notes with a word it begins, in the title or the body, in any case", arguments: [
        ("gard", ["Garden", "Recipes"]), ("GARDEN", ["Garden", "Recipes"]), ("photo", ["Garden", "City walk"]),
        ("tomato", ["Garden", "Recipes"]), ("bridges", ["City walk"]), ("walk", ["City walk"]),
        ("2024", ["Invoices 2024"]), ("inv", ["Invoices 2024"]), ("100", ["Invoices 2024"]),
    ])
    func prefixes(text: String, expected: [String]) async throws {
        let fixture = try await Self.seeded()
        #expect(Self.titles(try await fixture.store.notes(matching: text)) == Set(expected))
    }

    @Test("every word must match, in any order, and a word inside another word does not", arguments: [
        ("photo gard", ["Garden"]), ("gard photo", ["Garden"]), ("garden soup", ["Recipes"]),
        ("photo soup", []), ("arden", []), ("ridges", []), ("oto", []),
    ])
    func allWords(text: String, expected: [String]) async throws {
        let fixture = try await Self.seeded()
        #expect(Self.titles(try await fixture.store.notes(matching: text)) == Set(expected))
    }

    @Test("words with letters beyond ASCII are words too")
    func unicodeWords() async throws {
        let fixture = try await Self.seeded()
        #expect(Self.titles(try await fixture.store.notes(matching: "été")) == ["été à Lyon"])
        #expect(Self.titles(try await fixture.store.notes(matching: "marché dim")) == ["été à Lyon"])
    }

    @Test("query syntax of either database is only punctuation between words", arguments: [
        "\"gard", "gard\"", "title:gard", "gard*", "gard:*", "(gard)", "gard OR zzz", "gard AND", "NEAR(gard photo)",
        "gard & photo", "gard | zzz", "!zzz gard", "-zzz gard", "^gard", "gard'", "'; DROP TABLE note; --gard", "gard\\",
    ])
    func hostileSyntax(text: String) async throws {
        let fixture = try await Self.seeded()
        let words = try #require(NoteSearch(text)).words
        let found = Self.titles(try await fixture.store.notes(matching: text))
        #expect(found == Self.titles(try await fixture.store.notes(matching: words.joined(separator: " "))), "\(text)")
        if words == ["gard"] { #expect(found == ["Garden", "Recipes"], "\(text)") }
        #expect(try await fixture.store.notes().count == 5, "nothing was changed")
    }

    @Test("a text of only punctuation finds nothing, an empty one lists every note")
    func punctuationOnly() async throws {
        let fixture = try await Self.seeded()
        #expect(try await fixture.store.notes(matching: "%%% --- ***").isEmpty)
        #expect(try await fixture.store.notes(matching: "").count == 5)
    }

    @Test("the index follows edits, deletions and notes that arrive later")
    func followsChanges() async throws {
        let fixture = try await Self.seeded()
        let store = fixture.store
        let garden = try #require(try await store.notes(matching: "greenhouse").first)
        _ = try await store.updateNote(garden.id, body: "orchard in winter")
        #expect(try await store.notes(matching: "greenhouse").isEmpty)
        #expect(Self.titles(try await store.notes(matching: "orch")) == ["Garden"])
        _ = try await store.updateNote(garden.id, title: "Orchard")
        #expect(Self.titles(try await store.notes(matching: "gard")) == ["Recipes"])
        try await store.deleteNote(garden.id)
        #expect(try await store.notes(matching: "orchard").isEmpty)
        _ = try await store.createNote(title: "Second orchard")
        #expect(Self.titles(try await store.notes(matching: "orchard")) == ["Second orchard"])
    }

    @Test("search results come most recently changed first and page by cursor like the listing")
    func orderAndPaging() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        for index in 0..<23 { _ = try await store.createNote(title: "Album \(index)", body: index.isMultiple(of: 2) ? "holiday" : "work") }
        let all = try await store.notes(matching: "holi", limit: 100)
        #expect(all.count == 12)
        #expect(all.map(\.id) == (try await store.notes(limit: 100)).filter { $0.body == "holiday" }.map(\.id))
        var paged: [Note] = []
        var page = try await store.notes(matching: "holi", limit: 5)
        while !page.isEmpty {
            paged += page
            page = try await store.notes(matching: "holi", limit: 5, after: NoteCursor(after: page.last!))
        }
        #expect(paged.map(\.id) == all.map(\.id))
        #expect(try await store.notes(matching: "holi", limit: 5, offset: 10).map(\.id) == Array(all[10...]).map(\.id))
    }

    @Test("in SQLite a search reads the FTS5 index, not the notes' text")
    func sqliteUsesTheIndex() async throws {
        let fixture = try await Self.seeded()
        let database = fixture.store.catalog.database
        guard database.dialect == .sqlite else { return }
        let condition = try #require(NoteSearch("gard photo")).condition(for: .sqlite)
        let sql = "EXPLAIN QUERY PLAN SELECT * FROM note WHERE \(condition.sql) ORDER BY updatedAt DESC, id LIMIT 50"
        let plan = try await database.read { db in try db.query(sql, [condition.argument]).map { try $0.requiredString("detail") } }
        #expect(plan.contains { $0.contains("VIRTUAL TABLE INDEX") }, "\(plan)")
        #expect(!plan.contains { $0.contains("LIKE") }, "\(plan)")
        #expect(try await database.integrityProblems() == [])
    }

    @Test("in SQLite an index that lost a note's words is reported by the catalog's integrity check")
    func sqliteIndexDamageIsReported() async throws {
        let fixture = try await Self.seeded()
        let database = fixture.store.catalog.database
        guard database.dialect == .sqlite else { return }
        _ = try await database.write { db in
            try db.execute("""
                INSERT INTO note_search (note_search, rowid, title, body)
                SELECT 'delete', rowid, title, body FROM note WHERE title = 'Garden'
                """, [])
        }
        #expect(try await fixture.store.notes(matching: "greenhouse").isEmpty, "the damaged index no longer finds it")
        let problems = try await database.integrityProblems()
        #expect(problems.contains { $0.contains("search index") }, "\(problems)")
    }

    @Test("in PostgreSQL a search reads the GIN index when the table is large enough to matter")
    func postgresUsesTheIndex() async throws {
        let fixture = try await Self.seeded()
        let database = fixture.store.catalog.database
        guard database.dialect == .postgres else { return }
        let condition = try #require(NoteSearch("gard photo")).condition(for: .postgres)
        let plan = try await database.write { db in
            try db.execute("SET LOCAL enable_seqscan = off")
            return try db.query("EXPLAIN SELECT * FROM note WHERE \(condition.sql) ORDER BY updatedAt DESC, id LIMIT 50", [condition.argument])
                .map { try $0.requiredString("QUERY PLAN") }
        }
        #expect(plan.contains { $0.contains("note_search") }, "\(plan)")
    }
}

/// How a search text becomes words: the only part of the text that reaches a query.
@Suite("Note search words")
struct NoteSearchWordTests {
    @Test("words are lowercased runs of letters and digits, repeats dropped, in the order typed", arguments: [
        ("Garden", ["garden"]), ("  gard   PHOTO ", ["gard", "photo"]), ("INV-100", ["inv", "100"]),
        ("title:gard", ["title", "gard"]), ("\"a\" \"a\" b", ["a", "b"]), ("été à", ["été", "à"]), ("x_y", ["x", "y"]),
    ])
    func words(text: String, expected: [String]) {
        #expect(NoteSearch(text)?.words == expected)
    }

    @Test("a text with no letter or digit is no search", arguments: ["", "   ", "%%%", "\"*\"", "--", "&|!():"])
    func noWords(text: String) {
        #expect(NoteSearch(text) == nil)
    }

    @Test("at most sixteen words of at most sixty-four characters are used")
    func limits() throws {
        let search = try #require(NoteSearch((0..<40).map { "w\($0)" }.joined(separator: " ") + " " + String(repeating: "z", count: 500)))
        #expect(search.words.count == NoteSearch.maximumWords)
        let long = try #require(NoteSearch(String(repeating: "z", count: 500)))
        #expect(long.words == [String(repeating: "z", count: NoteSearch.maximumWordLength)])
    }

    @Test("each dialect gets a prefix query of the words and nothing else")
    func queries() throws {
        let search = try #require(NoteSearch("Gard, photo!"))
        #expect(search.condition(for: .sqlite).argument == .text("\"gard\"* \"photo\"*"))
        #expect(search.condition(for: .postgres).argument == .text("gard:* & photo:*"))
        #expect(search.condition(for: .postgres).sql.contains(SharedCatalogMigrations.noteSearchVector))
    }
}
