import Foundation

/// The text a note's title is sorted by, stored beside it (`note.titleKey`) so that both
/// catalogs list notes by title straight off one index, in the same order, compared byte by
/// byte (SQLite's `BINARY`, PostgreSQL's `"C"` collation): the order people expect of a list of
/// names, which neither database's own comparison gives alike.
///
/// - Letters compare without regard to case, accents or width: "apple", "Éclair", "eclair 2",
///   "Zebra".
/// - Numbers compare by value: "Trip 9" before "Trip 10" (each run of digits is written with
///   its length first, leading zeros dropped).
/// - Untitled notes (nothing but spaces) come last.
/// - Only the first ``maximumScalars`` characters count, so the key and a cursor that carries it
///   stay short; notes whose titles agree that far follow their ids.
public enum NoteTitleSortKey {
    /// How many characters of a title its key is made from.
    public static let maximumScalars = 100
    /// The longest key, in UTF-8 bytes (a cursor carries it in at most 800 characters).
    public static let maximumBytes = 600

    /// The key of a title with text: always starts with this, so untitled notes (``untitled``)
    /// sort after every one.
    static let titledPrefix = "0"
    /// The key of a title with no text.
    public static let untitled = "1"

    /// The key `title` sorts by.
    public static func key(for title: String) -> String {
        if let folded = asciiFolded(title) { return folded.isEmpty ? untitled : key(folded: folded) }
        return foldingKey(for: title)
    }

    /// ``key(for:)`` of any title, folded by Foundation.
    static func foldingKey(for title: String) -> String {
        let text = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return untitled }
        let folded = String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximumScalars)))
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return key(folded: Array(folded.utf8))
    }

    /// What Foundation's trimming and folding make of an all-ASCII title, without Foundation
    /// (most titles; about ten times faster, which a peer's first page of thousands of notes
    /// feels): spaces and line breaks off both ends, the first ``maximumScalars`` characters,
    /// letters lowercased (case folding; nothing in ASCII has an accent or a width to fold).
    /// Empty for a title of nothing but spaces; `nil` for a title with any other character.
    static func asciiFolded(_ title: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for byte in title.utf8 {
            guard byte < 0x80 else { return nil }
            bytes.append(byte)
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return bytes[first...min(last, first + maximumScalars - 1)].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// The key of a trimmed, folded title's UTF-8 bytes: each run of digits written as its
    /// length (two digits) and its value without leading zeros, everything else as it is.
    private static func key(folded: [UInt8]) -> String {
        var key = Array(titledPrefix.utf8)
        key.reserveCapacity(folded.count + 8)
        var digits: [UInt8] = []
        func flushDigits() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            let value = significant.isEmpty ? [UInt8(ascii: "0")] : Array(significant)
            // Two digits of length first: a longer number sorts after a shorter one.
            let length = min(value.count, 99)
            key.append(UInt8(ascii: "0") + UInt8(length / 10))
            key.append(UInt8(ascii: "0") + UInt8(length % 10))
            key += value
            digits.removeAll(keepingCapacity: true)
        }
        // Digits are single bytes, never part of a longer character's UTF-8.
        for byte in folded {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digits.append(byte)
            } else {
                flushDigits()
                key.append(byte)
            }
        }
        flushDigits()
        var text = String(decoding: key, as: UTF8.self)
        while text.utf8.count > maximumBytes { text.unicodeScalars.removeLast() }
        return text
    }
}
