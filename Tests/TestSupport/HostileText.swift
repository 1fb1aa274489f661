/// Strings built from the Unicode classes that break text handling: controls (C0, DEL, C1), line
/// and paragraph separators, bidirectional overrides and isolates, combining marks and ZWJ
/// sequences, Prepend and SpacingMark scalars, regional indicators, private use, unassigned
/// code points and noncharacters, path characters, and long runs of multi-byte letters near
/// the byte limits a record has. Deterministic from a ``SplitMix`` seed, so a failing case can
/// be replayed.
public enum HostileText {
    /// One representative scalar (or short sequence) per class, each named.
    public static let classes: [(name: String, text: String)] = [
        ("ASCII letter", "a"), ("digit", "7"), ("space", " "), ("tab", "\t"), ("LF", "\n"), ("CR", "\r"),
        ("NUL", "\u{0}"), ("ESC sequence", "\u{1B}[31m"), ("DEL", "\u{7F}"), ("NEL (C1)", "\u{85}"), ("CSI (C1)", "\u{9B}"),
        ("LINE SEPARATOR", "\u{2028}"), ("PARAGRAPH SEPARATOR", "\u{2029}"),
        ("RLO", "\u{202E}"), ("LRE", "\u{202A}"), ("PDF", "\u{202C}"), ("RLI", "\u{2067}"), ("PDI", "\u{2069}"),
        ("LRM", "\u{200E}"), ("ZWJ", "\u{200D}"), ("ZWNJ", "\u{200C}"), ("BOM", "\u{FEFF}"),
        ("combining acute", "\u{301}"), ("Prepend U+0D4E", "\u{D4E}"), ("Prepend U+0600", "\u{600}"),
        ("SpacingMark U+0903", "\u{903}"), ("Extend U+094D", "\u{94D}"), ("enclosing mark", "\u{20DD}"),
        ("regional indicators", "\u{1F1E9}\u{1F1EA}"), ("emoji ZWJ", "👩\u{200D}💻"), ("Hangul L", "\u{1100}"),
        ("Malayalam", "മലയാളം"), ("Han", "漢字"), ("Arabic", "مرحبا"), ("Hebrew", "שלום"), ("é", "é"),
        ("superscript two", "\u{B2}"), ("roman numeral", "\u{2163}"), ("private use", "\u{E000}"),
        ("plane 15 private use", "\u{F0000}"), ("unassigned U+0378", "\u{378}"), ("noncharacter U+FFFE", "\u{FFFE}"),
        ("replacement", "\u{FFFD}"), ("slash", "/"), ("dot", "."), ("dot dot", ".."), ("backslash", "\\"),
        ("quote", "\""), ("apostrophe", "'"), ("star", "*"), ("colon", ":"), ("caret", "^"), ("minus", "-"),
        ("plus", "+"), ("parentheses", "()"), ("ampersand", "&"), ("pipe", "|"), ("bang", "!"), ("markup", "<b>"),
    ]

    /// A random string of `1...maxPieces` pieces drawn from ``classes``; now and then one piece is
    /// repeated enough to pass a record's byte limits (255, 4 KiB).
    public static func random(using generator: inout SplitMix, maxPieces: Int = 8) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 1...maxPieces, using: &generator) {
            let piece = classes.randomElement(using: &generator)!.text
            switch Int.random(in: 0..<20, using: &generator) {
            case 0: text += String(repeating: piece, count: Int.random(in: 60...300, using: &generator))
            case 1: text += String(repeating: piece, count: Int.random(in: 1000...1500, using: &generator))
            default: text += piece
            }
        }
        return text
    }
}
