/// Checks path identifiers before they reach the store.
enum Identifier {
    /// Returns `text` lowercased when it is a UUID string.
    /// - Throws: 404 (`note_not_found` / `attachment_not_found`) otherwise: a malformed id names nothing.
    static func parse(_ text: String?, kind: String) throws -> String {
        guard let text, let lowered = lowercasedUUID(text) else {
            throw ServerError(.notFound, code: "\(kind)_not_found", message: "no \(kind) \(text ?? "")")
        }
        return lowered
    }

    /// `text` lowercased when it is 36 bytes of ASCII hex digits with dashes at 8, 13, 18 and
    /// 23, else `nil`. Checked byte by byte (every request with an id in its path asks), and
    /// copied only when it has capitals.
    static func lowercasedUUID(_ text: String) -> String? {
        var bytes = text
        let shape: (valid: Bool, capitals: Bool) = bytes.withUTF8 { utf8 in
            guard utf8.count == 36 else { return (false, false) }
            var capitals = false
            for (index, byte) in utf8.enumerated() {
                switch (index, byte) {
                case (8, UInt8(ascii: "-")), (13, UInt8(ascii: "-")), (18, UInt8(ascii: "-")), (23, UInt8(ascii: "-")): continue
                case (8, _), (13, _), (18, _), (23, _): return (false, false)
                case (_, UInt8(ascii: "0")...UInt8(ascii: "9")), (_, UInt8(ascii: "a")...UInt8(ascii: "f")): continue
                case (_, UInt8(ascii: "A")...UInt8(ascii: "F")): capitals = true
                default: return (false, false)
                }
            }
            return (true, capitals)
        }
        guard shape.valid else { return nil }
        return shape.capitals ? String(decoding: text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self) : text
    }
}
