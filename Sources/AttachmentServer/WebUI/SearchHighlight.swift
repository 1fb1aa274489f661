/// The words a search found, marked in the text shown for it: HTML in which each word of the
/// text that begins with one of the query's words has that beginning in `<mark>` — the same
/// rule the search itself follows (a query word matches the start of a word, in any case;
/// letters and digits make words, everything else separates them).
struct SearchHighlight {
    /// The query's words, lowercased, longest first (so "photos" is marked whole when both
    /// "pho" and "photos" were asked for).
    let words: [String]

    /// The highlight for `query` (none for an empty one).
    init(query: String) {
        words = Set(Self.words(in: query.lowercased())).sorted { $0.count > $1.count }
    }

    /// `text` as escaped HTML with each match in `<mark>`.
    func html(_ text: String) -> String {
        guard !words.isEmpty else { return HTML.escape(text) }
        var html = ""
        var word = ""
        func flush() {
            defer { word = "" }
            guard !word.isEmpty else { return }
            let lowered = word.lowercased()
            guard let match = words.first(where: { lowered.hasPrefix($0) }),
                  lowered.count == word.count else {  // a case change that alters the length: left unmarked
                html += HTML.escape(word)
                return
            }
            let cut = word.index(word.startIndex, offsetBy: match.count)
            html += "<mark>\(HTML.escape(String(word[..<cut])))</mark>\(HTML.escape(String(word[cut...])))"
        }
        for character in text {
            if character.isLetter || character.isNumber {
                word.append(character)
            } else {
                flush()
                html += HTML.escape(String(character))
            }
        }
        flush()
        return html
    }

    /// Where in `text` the first match starts, or `nil`.
    func firstMatch(in text: String) -> String.Index? {
        guard !words.isEmpty else { return nil }
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isLetter || character.isNumber {
                if start == nil { start = index }
            } else if let begun = start {
                if matches(text[begun..<index]) { return begun }
                start = nil
            }
            index = text.index(after: index)
        }
        if let begun = start, matches(text[begun...]) { return begun }
        return nil
    }

    private func matches(_ word: Substring) -> Bool {
        let lowered = word.lowercased()
        return words.contains { lowered.hasPrefix($0) }
    }

    private static func words(in text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }
}
