/// The one home of "which Unicode scalars may not stand in a name or a line of text": control
/// characters and the bidirectional formatting characters that make text display in an order
/// other than the one it is stored in (`invoice\u{202E}gpj.exe` shows as `invoiceexe.jpg`).
///
/// ``RecordRules`` (what a record may hold) and the code that turns a file name into a path use
/// these, so the character classes are written once.
package enum TextScalars {
    /// C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls (U+0080–U+009F).
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The bidirectional embeddings, overrides and isolates: U+202A–U+202E (LRE, RLE, PDF, LRO,
    /// RLO) and U+2066–U+2069 (LRI, RLI, FSI, PDI).
    package static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// The invisible bidirectional marks: LEFT-TO-RIGHT and RIGHT-TO-LEFT MARK (U+200E, U+200F)
    /// and the ARABIC LETTER MARK (U+061C), which reorder what a name shows as much as an override.
    package static func isBidiMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
    }

    /// A line or paragraph break outside the C0 controls: NEL (U+0085, also a C1 control),
    /// LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029).
    package static func isUnicodeLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// `U+XXXX`, how an error message names a scalar without printing it.
    package static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
