import Foundation

/// The `key=value` parameters of a header such as `Content-Type` or `Content-Disposition`
/// (`form-data; name="file"; filename="a.jpg"`), with quoted values unquoted.
struct HeaderParameters {
    /// The part before the first `;`, trimmed and lowercased (`multipart/form-data`, `form-data`).
    let value: String
    private var parameters: [String: String] = [:]

    /// Parses `header`. Any text is accepted: an unterminated quoted value runs to the end of
    /// the header.
    init(_ header: String) {
        let characters = Array(header)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
        func read(until stops: Set<Character>) -> String {
            let begin = index
            while index < characters.count, !stops.contains(characters[index]) { index += 1 }
            return String(characters[begin..<index]).trimmingCharacters(in: .whitespaces)
        }
        value = read(until: [";"]).lowercased()
        while index < characters.count {
            index += 1 // the ";"
            skipSpaces()
            let key = read(until: ["=", ";"]).lowercased()
            guard index < characters.count, characters[index] == "=" else { continue }
            index += 1
            skipSpaces()
            var parsed = ""
            if index < characters.count, characters[index] == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"" {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    parsed.append(characters[index])
                    index += 1
                }
                if index < characters.count { index += 1 } // the closing quote, if there is one
                _ = read(until: [";"])
            } else {
                parsed = read(until: [";"])
            }
            if !key.isEmpty && parameters[key] == nil { parameters[key] = parsed }
        }
    }

    /// The value of parameter `name` (case-insensitive), if present.
    subscript(name: String) -> String? { parameters[name.lowercased()] }
}
