/// Text a peer wrote (an error body, a reason, a value it sent) made safe to write into a log
/// line, onto a terminal or into a page.
///
/// Every character that could end a line, drive a terminal, reorder what is shown or open
/// markup is written as `\u{…}`: the C0 controls (CR, LF and ESC among them), DEL, the C1
/// controls (U+0080–U+009F, CSI among them), the line and paragraph separators, the bidi
/// marks, embeddings, overrides and isolates, and `< > & " '`. A peer can neither forge a log
/// line nor send an escape sequence through it.
///
/// ```swift
/// PeerText.quoted("ok\r\n2026 error forged\u{1B}[2J")   // "ok\u{d}\u{a}2026 error forged\u{1b}[2J"
/// ```
public enum PeerText {
    /// `text` escaped and cut to `limit` characters (an ellipsis marks the cut), in double quotes.
    public static func quoted(_ text: String, limit: Int = 40) -> String {
        "\"" + escaped(text, limit: limit) + "\""
    }

    /// `text` escaped, cut to `limit` characters when a limit is given (an ellipsis marks the cut).
    /// With `markup: false` the markup characters stay as they are (for a line that is only
    /// logged or printed, and may hold values quoted already).
    public static func escaped(_ text: String, limit: Int? = nil, markup: Bool = true) -> String {
        let cut = limit.map { text.count > $0 ? String(text.prefix($0)) + "…" : text } ?? text
        let escapes = { (scalar: Unicode.Scalar) in needsEscaping(scalar) && (markup || !isMarkup(scalar)) }
        guard cut.unicodeScalars.contains(where: escapes) else { return cut }
        var result = ""
        result.reserveCapacity(cut.utf8.count)
        for scalar in cut.unicodeScalars {
            if escapes(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` is written as `\u{…}`.
    /// The character classes are ``TextScalars``', the bidi marks included: in a log line they
    /// still reorder what follows.
    static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        TextScalars.isControl(scalar) || TextScalars.isUnicodeLineBreak(scalar) || TextScalars.isBidiControl(scalar)
            || TextScalars.isBidiMark(scalar) || isMarkup(scalar)
    }

    /// `" & ' < >`.
    static func isMarkup(_ scalar: Unicode.Scalar) -> Bool {
        [0x22, 0x26, 0x27, 0x3C, 0x3E].contains(scalar.value)
    }
}
