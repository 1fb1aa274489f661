@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Search text never reaches FTS5's or `tsquery`'s syntax, whatever scalar stands next to a
/// syntax character: terms are built per Unicode scalar, so no grapheme cluster can glue a
/// quote or an operator into a "letter".
@Suite("Search text cannot break the query", .timeLimit(.minutes(10)))
struct SearchFuzzTests {
    /// The characters and words of FTS5's and `tsquery`'s syntax.
    static let syntax = ["\"", "*", "(", ")", ":", "^", "-", "+", "NEAR", "NEAR(", "AND", "OR", "NOT", "&", "|", "!", "'", "\\", ":*"]

    /// Two scalars of every general category but the surrogates (which are no scalars), written
    /// out rather than found by walking the code space: that walk reads the properties of 1.1
    /// million scalars, and in a debug build it held a thread of Swift's cooperative pool (and
    /// every test waiting for this value, another) for minutes. A test below checks that the
    /// list covers the 29 categories.
    static let everyCategory: [Unicode.Scalar] = [
        "A", "\u{3A9}", "a", "\u{DF}", "\u{1C5}", "\u{1F88}", "\u{2B0}", "\u{30FC}", "\u{5D0}", "\u{6F22}",
        "\u{301}", "\u{94D}", "\u{903}", "\u{D3E}", "\u{20DD}", "\u{488}", "7", "\u{663}", "\u{2163}", "\u{3007}",
        "\u{B2}", "\u{BD}", "_", "\u{203F}", "-", "\u{2013}", "(", "\u{300C}", ")", "\u{300D}", "\u{AB}", "\u{2018}",
        "\u{BB}", "\u{2019}", "!", "\u{BF}", "+", "\u{2211}", "$", "\u{20AC}", "^", "\u{2DA}", "\u{A9}", "\u{1F600}",
        " ", "\u{3000}", "\u{2028}", "\u{2029}", "\u{0}", "\u{9B}", "\u{200D}", "\u{FEFF}", "\u{E000}", "\u{F0000}",
        "\u{378}", "\u{FFFE}",
    ]

    /// ``everyCategory`` plus the named classes of ``HostileText`` (Grapheme_Cluster_Break
    /// Prepend, Extend, ZWJ, SpacingMark, regional indicators, …).
    static let neighbours: [String] = everyCategory.map { String($0) } + HostileText.classes.map(\.text)

    /// Every neighbour placed in front of, behind and around every syntax piece.
    static let queries: [String] = {
        var queries: [String] = []
        for neighbour in neighbours {
            for piece in syntax {
                let around: String = neighbour + piece + neighbour
                let inWord: String = "a" + neighbour + piece + "b"
                let spaced: String = piece + " " + neighbour + " " + piece
                queries += [neighbour + piece, piece + neighbour, around, inWord, spaced]
            }
        }
        return queries
    }()

    /// Runs every query against `store`, which holds notes of hostile text; returns the failures.
    static func failures(in store: AttachmentStore) async throws -> [String] {
        for (index, hostile) in HostileText.classes.enumerated() where index % 4 == 0 {
            _ = try? await store.createNote(title: "garden \(hostile.text) photos", body: hostile.text + "\"" + hostile.text)
        }
        // Four searches at a time (a PostgreSQL catalog's pool holds four connections). About
        // 7,000 searches take some 45 s alone in a debug build, and several times that in a
        // full parallel test run: hence the suite's ten minutes.
        var failures: [String] = []
        var waiting = queries[...]
        try await withThrowingTaskGroup(of: String?.self) { group in
            func search(_ query: String) {
                group.addTask {
                    do {
                        _ = try await store.notes(matching: query, limit: 5)
                        return nil
                    } catch {
                        return "\(query.unicodeScalars.map { TextScalars.name($0) }.joined(separator: " ")): \(error)"
                    }
                }
            }
            for _ in 0..<4 { if let query = waiting.popFirst() { search(query) } }
            while let outcome = try await group.next() {
                if let outcome { failures.append(outcome) }
                if let query = waiting.popFirst() { search(query) }
            }
        }
        return failures
    }

    @Test("the neighbours stand for every general category of Unicode but the surrogates")
    func neighboursCoverEveryCategory() {
        let categories = Set(Self.everyCategory.map { "\($0.properties.generalCategory)" })
        #expect(categories.count == 29, "\(categories.sorted())")
    }

    @Test("the Prepend scalar U+0D4E before a quote is searched for instead of failing")
    func prependBeforeQuote() async throws {
        let fixture = try await StoreFixture("search-prepend")
        _ = try await fixture.store.createNote(title: "ൎx garden")
        // Once one `Character` whose `isLetter` was true; the quote then ended FTS5's term (a 500).
        _ = try await fixture.store.notes(matching: "\u{D4E}\"")
        _ = try await fixture.store.notes(matching: "\u{D4E}\" OR \"")
        #expect(NoteSearch("\u{D4E}\"")?.words == ["\u{D4E}"])
        #expect(try await fixture.store.notes(matching: "gard\u{D4E}\"").count == 0)
        #expect(try await fixture.store.notes(matching: "garden").count == 1)
    }

    @Test("no word of a search holds a character of either query syntax, for any neighbour")
    func wordsHoldNoSyntax() {
        let forbidden = Set("\"*():^-+&|!'\\ ".unicodeScalars)
        for query in Self.queries {
            for word in NoteSearch(query)?.words ?? [] {
                #expect(!word.unicodeScalars.contains(where: forbidden.contains), "\(query.debugDescription) → \(word.debugDescription)")
                #expect(word.unicodeScalars.allSatisfy(NoteSearch.isWordScalar))
            }
        }
    }

    @Test("every scalar class next to every syntax character, in front and behind, searches without an error (SQLite or the suite's catalog)")
    func fuzzStoreCatalog() async throws {
        let fixture = try await StoreFixture("search-fuzz")
        let failures = try await Self.failures(in: fixture.store)
        #expect(failures.isEmpty, "\(failures.count) of \(Self.queries.count) searches failed, first: \(failures.prefix(5))")
    }

    @Test("the same fuzz against PostgreSQL's tsquery", .enabled(if: ProcessInfo.processInfo.environment["ATTACH_TEST_POSTGRES"] != nil,
                                                                 "needs ATTACH_TEST_POSTGRES"))
    func fuzzPostgres() async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.catalogDatabase = try await StoreFixture.testCatalog(label: "searchfuzz")
        let fixture = try await StoreFixture("search-fuzz-pg", configuration: configuration)
        let failures = try await Self.failures(in: fixture.store)
        #expect(failures.isEmpty, "\(failures.count) of \(Self.queries.count) searches failed, first: \(failures.prefix(5))")
    }
}
