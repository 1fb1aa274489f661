import CatalogSQL

/// A search of the notes: every word of the text must begin a word of the note's title or body,
/// in any case (`gard pho` finds "Garden photos"). Words are runs of letters and digits;
/// everything else in the text only separates them, so no character a user types can reach
/// either database's query syntax.
///
/// Answered by the catalogs' own full-text indexes (migration `v7`): SQLite's FTS5 table
/// `note_search`, PostgreSQL's GIN index over `to_tsvector('simple', …)`.
struct NoteSearch: Sendable, Equatable {
    /// At most this many words are used; more narrow nothing a person types.
    static let maximumWords = 16
    /// A word is cut to this many characters.
    static let maximumWordLength = 64

    /// The words, lowercased, in the order typed, without repeats.
    let words: [String]

    /// The search `text` asks for; `nil` when it holds no word (empty, or only punctuation).
    init?(_ text: String) {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        var seen = Set<String>()
        let distinct = words.map { String($0.prefix(Self.maximumWordLength)) }.filter { seen.insert($0).inserted }
        guard !distinct.isEmpty else { return nil }
        self.words = Array(distinct.prefix(Self.maximumWords))
    }

    /// The condition on `note` rows and its one argument, for `dialect`.
    func condition(for dialect: SQLDialect) -> (sql: String, argument: SQLValue) {
        switch dialect {
        case .sqlite:
            // Each word quoted and starred: a prefix query term, implicitly AND-ed.
            ("note.rowid IN (SELECT rowid FROM note_search WHERE note_search MATCH ?)",
             .text(words.map { "\"\($0)\"*" }.joined(separator: " ")))
        case .postgres:
            ("\(SharedCatalogMigrations.noteSearchVector) @@ to_tsquery('simple'::regconfig, ?)",
             .text(words.map { "\($0):*" }.joined(separator: " & ")))
        }
    }
}
