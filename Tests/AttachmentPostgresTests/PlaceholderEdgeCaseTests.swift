@testable import AttachmentPostgres
import Testing

/// `Placeholders.translate` at the edges the basic table leaves out: numbering past nine,
/// placeholders next to operators and casts, backslashes inside standard and escape strings,
/// literals and comments left open at the end of the text, and dollar quotes whose tags differ.
@Suite("placeholders: edge cases")
struct PlaceholderEdgeCaseTests {
    @Test("placeholders are numbered in order however many there are, and however close together", arguments: [
        ("?", "$1", 1),
        ("??", "$1$2", 2),
        ("(?,?)", "($1,$2)", 2),
        ("", "", 0),
        ("SELECT 1", "SELECT 1", 0),
    ])
    func numbering(sql: String, expected: String, count: Int) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == count)
    }

    @Test("the tenth and later placeholders take two digits")
    func doubleDigitNumbers() {
        let sql = "INSERT INTO t VALUES (" + Array(repeating: "?", count: 12).joined(separator: ", ") + ")"
        let translated = Placeholders.translate(sql)
        #expect(translated.count == 12)
        #expect(translated.sql == "INSERT INTO t VALUES (" + (1...12).map { "$\($0)" }.joined(separator: ", ") + ")")
    }

    @Test("a placeholder next to an operator or a cast is still a placeholder", arguments: [
        ("SELECT ?::text", "SELECT $1::text"),
        ("SELECT 5-?", "SELECT 5-$1"),
        ("SELECT ? - ?", "SELECT $1 - $2"),
        ("SELECT ? / ?", "SELECT $1 / $2"),
        ("SELECT ?*?", "SELECT $1*$2"),
        ("WHERE a=?AND b<>?", "WHERE a=$1AND b<>$2"),
        ("SELECT ?||'x'", "SELECT $1||'x'"),
    ])
    func besideOperators(sql: String, expected: String) {
        #expect(Placeholders.translate(sql).sql == expected)
    }

    @Test("in a standard string a backslash is an ordinary character, so the quote after it closes the string")
    func backslashInStandardString() {
        let translated = Placeholders.translate(#"SELECT 'C:\', ?"#)
        #expect(translated.sql == #"SELECT 'C:\', $1"#)
        #expect(translated.count == 1)
    }

    @Test("in an escape string (E'…' or e'…') a backslash escapes the quote after it", arguments: [
        (#"SELECT E'\'?', ?"#, #"SELECT E'\'?', $1"#),
        (#"SELECT e'\'?', ?"#, #"SELECT e'\'?', $1"#),
        (#"E'\'?', ?"#, #"E'\'?', $1"#),
        (#"SELECT E'\\', ?"#, #"SELECT E'\\', $1"#),
        (#"SELECT (E'\n?'), ?"#, #"SELECT (E'\n?'), $1"#),
    ])
    func escapeStrings(sql: String, expected: String) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == 1)
    }

    @Test("an identifier ending in E before a quote does not make an escape string")
    func identifierEndingInE() {
        let translated = Placeholders.translate(#"SELECT namE'\', ?"#)
        #expect(translated.sql == #"SELECT namE'\', $1"#)
        #expect(translated.count == 1)
    }

    @Test("doubled quotes inside quoted identifiers and escape strings keep the text quoted", arguments: [
        (#"SELECT "a""?" FROM t WHERE x = ?"#, #"SELECT "a""?" FROM t WHERE x = $1"#),
        ("SELECT E'it''s ?', ?", "SELECT E'it''s ?', $1"),
    ])
    func doubledQuotes(sql: String, expected: String) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == 1)
    }

    @Test("a literal, identifier or comment left open runs to the end: nothing after it is a placeholder", arguments: [
        ("SELECT ?, 'open ?", "SELECT $1, 'open ?"),
        ("SELECT ?, \"open ?", "SELECT $1, \"open ?"),
        ("SELECT ?, E'open \\' ?", "SELECT $1, E'open \\' ?"),
        ("SELECT ? /* open ?", "SELECT $1 /* open ?"),
        ("SELECT ? /* a /* b */ still open ?", "SELECT $1 /* a /* b */ still open ?"),
        ("SELECT ?, $q$ open ?", "SELECT $1, $q$ open ?"),
        ("SELECT ? -- no newline ?", "SELECT $1 -- no newline ?"),
    ])
    func unterminated(sql: String, expected: String) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == 1)
    }

    @Test("a line comment ends at its newline, and a block comment at its matching close")
    func commentEnds() {
        let translated = Placeholders.translate("SELECT ? -- one?\n  , ? /* two? /* three? */ */ , ?")
        #expect(translated.sql == "SELECT $1 -- one?\n  , $2 /* two? /* three? */ */ , $3")
        #expect(translated.count == 3)
    }

    @Test("a single dash or slash is an operator, not the start of a comment")
    func loneDashAndSlash() {
        let translated = Placeholders.translate("SELECT -?, 1/?, ?-1")
        #expect(translated.sql == "SELECT -$1, 1/$2, $3-1")
    }

    @Test("a dollar quote ends only at the same tag: another tag, or the tag in another case, is its content", arguments: [
        ("SELECT $a$ $b$ ? $b$ ? $a$, ?", "SELECT $a$ $b$ ? $b$ ? $a$, $1"),
        ("SELECT $A$ ? $a$ ? $A$, ?", "SELECT $A$ ? $a$ ? $A$, $1"),
        ("SELECT $_t1$ ? $_t1$, ?", "SELECT $_t1$ ? $_t1$, $1"),
        ("SELECT $$$$, ?", "SELECT $$$$, $1"),
    ])
    func dollarQuoteTags(sql: String, expected: String) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == 1)
    }

    @Test("a numbered parameter already in the text is left as it is and not counted")
    func existingNumberedParameters() {
        let translated = Placeholders.translate("SELECT $1, ?, $2")
        #expect(translated.sql == "SELECT $1, $1, $2")
        #expect(translated.count == 1)
    }

    @Test("characters outside ASCII around placeholders and in comments are copied unchanged")
    func nonASCII() {
        let translated = Placeholders.translate("SELECT ? AS \"フォト\" -- 📷?\n, 'ünï?', ?")
        #expect(translated.sql == "SELECT $1 AS \"フォト\" -- 📷?\n, 'ünï?', $2")
        #expect(translated.count == 2)
    }
}
