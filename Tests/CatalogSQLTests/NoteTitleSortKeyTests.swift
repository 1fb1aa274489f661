@testable import CatalogSQL
import Testing

/// ``NoteTitleSortKey``: the text a title sorts by, compared byte by byte in both catalogs.
@Suite("Note title sort keys")
struct NoteTitleSortKeyTests {
    @Test("keys compare as people sort names", arguments: [
        ("apple", "Banana"), ("Banana", "cherry"), ("eclair", "Éclairs"), ("Trip 9", "Trip 10"), ("Trip 10", "Trip 10b"),
        ("Trip 2", "Trip 0010"), ("A", "a b"), ("Zebra", ""), ("zz", "   "), ("Photo 99", "Photo 100"), ("1", "a"),
    ])
    func ordered(first: String, second: String) {
        #expect(Array(NoteTitleSortKey.key(for: first).utf8).lexicographicallyPrecedes(Array(NoteTitleSortKey.key(for: second).utf8)),
                "\(first) before \(second)")
    }

    @Test("titles that differ only in case, accents, width, leading zeros or surrounding spaces have one key", arguments: [
        ("Éclair", "eclair"), ("CAFÉ", "cafe"), ("Ｔrip", "trip"), ("Trip 007", "trip 7"), ("  Garden ", "Garden"), ("", " \t "),
    ])
    func same(first: String, second: String) {
        #expect(NoteTitleSortKey.key(for: first) == NoteTitleSortKey.key(for: second))
    }

    @Test("a key is made from the first 100 characters and holds at most 600 bytes, whatever the title")
    func bounded() {
        let long = String(repeating: "a", count: 100)
        #expect(NoteTitleSortKey.key(for: long + "b") == NoteTitleSortKey.key(for: long + "c"))
        for title in [String(repeating: "🌊", count: 4096), String(repeating: "9", count: 5000), String(repeating: "ﬃ", count: 1000)] {
            #expect(NoteTitleSortKey.key(for: title).utf8.count <= NoteTitleSortKey.maximumBytes)
        }
    }

    @Test("an untitled note's key sorts after every titled one's")
    func untitledLast() {
        #expect(NoteTitleSortKey.key(for: "") == NoteTitleSortKey.untitled)
        for title in ["~", "\u{10FFFF}", "ÿ", "zzzz"] {
            #expect(NoteTitleSortKey.key(for: title) < NoteTitleSortKey.untitled, "\(title)")
        }
    }

    @Test("an ASCII title's key, made without Foundation, is the key Foundation's folding makes")
    func asciiKeysMatchFolding() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        var titles = ["", " ", "\t\n", "  Trip 010 ", "ABC xyz", "007", "a0b00c000", String(repeating: "Z9", count: 80),
                      String(alphabet), " \r\u{0B}\u{0C}x\u{0B}"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...140, using: &generator)
            titles.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for title in titles {
            #expect(NoteTitleSortKey.asciiFolded(title) != nil)
            #expect(NoteTitleSortKey.key(for: title) == NoteTitleSortKey.foldingKey(for: title), "\(title.debugDescription)")
        }
        #expect(NoteTitleSortKey.asciiFolded("Éclair") == nil)
    }
}
