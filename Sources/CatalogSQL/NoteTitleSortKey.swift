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
        let text = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return untitled }
        let folded = String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximumScalars)))
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var key = titledPrefix
        var digits = ""
        func flushDigits() {
            guard !digits.isEmpty else { return }
            let value = digits.drop { $0 == "0" }
            let significant = value.isEmpty ? "0" : String(value)
            // Two digits of length first: a longer number sorts after a shorter one.
            key += String(format: "%02d", min(significant.count, 99)) + significant
            digits = ""
        }
        for scalar in folded.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                digits.unicodeScalars.append(scalar)
            } else {
                flushDigits()
                key.unicodeScalars.append(scalar)
            }
        }
        flushDigits()
        while key.utf8.count > maximumBytes { key.unicodeScalars.removeLast() }
        return key
    }
}
