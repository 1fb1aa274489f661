import AttachmentStore
import Testing

@Suite("Peer text is quoted before a log or a terminal sees it")
struct PeerTextTests {
    @Test("C0, DEL, C1, line separators and bidi controls are escaped; other text, accents and emoji stay", arguments: [
        ("ok\r\nforged", "ok\\u{d}\\u{a}forged"), ("\u{1B}[2J\u{1B}]0;title\u{07}", "\\u{1b}[2J\\u{1b}]0;title\\u{7}"),
        ("\u{9B}31m\u{85}", "\\u{9b}31m\\u{85}"), ("del\u{7F}", "del\\u{7f}"), ("a\u{2028}b\u{2029}", "a\\u{2028}b\\u{2029}"),
        ("\u{202E}gpj.exe\u{2066}\u{2069}\u{200F}\u{061C}", "\\u{202e}gpj.exe\\u{2066}\\u{2069}\\u{200f}\\u{61c}"),
        ("Grüße 📷 日本", "Grüße 📷 日本"),
    ])
    func escapes(text: String, escaped: String) {
        #expect(PeerText.escaped(text, markup: false) == escaped)
        #expect(PeerText.quoted(text, limit: 100) == "\"" + escaped + "\"")
    }

    @Test("a long text is cut with an ellipsis, and markup is escaped unless asked not to")
    func cutAndMarkup() {
        #expect(PeerText.escaped(String(repeating: "x", count: 300), limit: 200) == String(repeating: "x", count: 200) + "…")
        #expect(PeerText.escaped("<b>\"a\" & 'b'</b>") == "\\u{3c}b\\u{3e}\\u{22}a\\u{22} \\u{26} \\u{27}b\\u{27}\\u{3c}/b\\u{3e}")
        #expect(PeerText.escaped("<b>", markup: false) == "<b>")
    }
}
