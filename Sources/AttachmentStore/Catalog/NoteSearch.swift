import CatalogSQL

/// A search of the notes: every word of the text must begin a word of the note's title or body,
/// in any case (`gard pho` finds "Garden photos"). Words are runs of Unicode scalars that are
/// letters, marks or numbers (general categories L, M, N); every other scalar only separates
/// them, so no character a user types can reach either database's query syntax.
///
/// The text is read scalar by scalar, never by `Character`: a grapheme cluster may glue a
/// quote or an operator to a letter (U+0D4E, a Prepend scalar, followed by `"` is one
/// `Character` whose `isLetter` is true), and that quote would then end FTS5's quoted term.
///
/// Answered by the catalogs' own full-text indexes (migration `v7`): SQLite's FTS5 table
/// `note_search`, PostgreSQL's GIN index over `to_tsvector('simple', …)`.
struct NoteSearch: Sendable, Equatable {
    /// At most this many words are used; more narrow nothing a person types.
    static let maximumWords = 16
    /// A word is cut to this many Unicode scalars.
    static let maximumWordLength = 64

    /// The words, lowercased, in the order typed, without repeats.
    let words: [String]

    /// The search `text` asks for; `nil` when it holds no word (empty, or only punctuation).
    init?(_ text: String) {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            if Self.isWordScalar(scalar) {
                if current.count < Self.maximumWordLength { current.append(scalar) }
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        var seen = Set<String>()
        let distinct = words.filter { seen.insert($0).inserted }
        guard !distinct.isEmpty else { return nil }
        self.words = Array(distinct.prefix(Self.maximumWords))
    }

    /// Whether `scalar` belongs to a word: a letter, a mark (the accents and vowel signs FTS5's
    /// `unicode61` keeps inside a token) or a number. None of FTS5's or `tsquery`'s syntax
    /// characters (`" * ( ) : ^ - + & | ! '` and space) is one.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber:
            true
        default:
            false
        }
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
