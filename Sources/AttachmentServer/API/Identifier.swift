/// Checks path identifiers before they reach the store.
enum Identifier {
    /// Returns `text` lowercased when it is a UUID string.
    /// - Throws: 404 (`note_not_found` / `attachment_not_found`) otherwise: a malformed id names nothing.
    static func parse(_ text: String?, kind: String) throws -> String {
        guard let text, text.utf8.count == 36,
              text.enumerated().allSatisfy({ index, character in
                  // ASCII only: `isHexDigit` also takes fullwidth digits and letters.
                  [8, 13, 18, 23].contains(index) ? character == "-" : character.isASCII && character.isHexDigit
              })
        else {
            throw ServerError(.notFound, code: "\(kind)_not_found", message: "no \(kind) \(text ?? "")")
        }
        return text.lowercased()
    }
}
