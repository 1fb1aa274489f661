@testable import AttachmentServer
import Foundation
import Testing

/// The `key=value` parameters of `Content-Type` and `Content-Disposition` headers.
@Suite("Header parameters")
struct HeaderParametersTests {
    @Test("the leading value is trimmed and lower-cased; parameter values keep their case")
    func leadingValue() {
        let parameters = HeaderParameters("  Multipart/Form-Data \t; Boundary=AbC")
        #expect(parameters.value == "multipart/form-data")
        #expect(parameters["boundary"] == "AbC")
        #expect(HeaderParameters("").value == "")
        #expect(HeaderParameters("text/plain").value == "text/plain")
    }

    @Test("parameter names match whatever their case in the header or in the lookup")
    func caseInsensitiveNames() {
        let parameters = HeaderParameters("form-data; NAME=file; FileName=\"a.jpg\"")
        #expect(parameters["name"] == "file" && parameters["Name"] == "file" && parameters["NAME"] == "file")
        #expect(parameters["filename"] == "a.jpg" && parameters["FILENAME"] == "a.jpg")
        #expect(parameters["missing"] == nil)
    }

    @Test("when a parameter repeats, in any case, the first value wins")
    func firstValueWins() {
        let parameters = HeaderParameters("form-data; name=first; NAME=second; name=\"third\"")
        #expect(parameters["name"] == "first")
        #expect(HeaderParameters("x; a; a=1; a=2")["a"] == "1", "a key without a value does not claim the name")
    }

    @Test("a backslash in a quoted value escapes the next character, a quote or a backslash")
    func escapedQuotes() {
        #expect(HeaderParameters(#"x; a="say \"hi\"""#)["a"] == #"say "hi""#)
        #expect(HeaderParameters(#"x; a="back\\slash""#)["a"] == #"back\slash"#)
        #expect(HeaderParameters(#"x; a="\q\u""#)["a"] == "qu")
        #expect(HeaderParameters(#"x; a="ends in \"#)["a"] == #"ends in \"#)
    }

    @Test("a semicolon or equals sign inside quotes belongs to the value")
    func separatorsInsideQuotes() {
        let parameters = HeaderParameters(#"form-data; filename="a;b=c.jpg"; name=f"#)
        #expect(parameters["filename"] == "a;b=c.jpg")
        #expect(parameters["name"] == "f")
    }

    @Test("an unquoted value runs to the next semicolon, keeping quotes and equals signs inside it")
    func unquotedValues() {
        let parameters = HeaderParameters(#"x; a=b=c; d=e"f; g=h"#)
        #expect(parameters["a"] == "b=c")
        #expect(parameters["d"] == #"e"f"#)
        #expect(parameters["g"] == "h")
    }

    @Test("text after a closing quote, before the next semicolon, is dropped")
    func junkAfterQuote() {
        let parameters = HeaderParameters(#"x; a="v"junk more; b=2"#)
        #expect(parameters["a"] == "v")
        #expect(parameters["b"] == "2")
    }

    @Test("empty values, quoted or not, are present and empty")
    func emptyValues() {
        let parameters = HeaderParameters(#"x; a=; b=""; c= ; d"#)
        #expect(parameters["a"] == "")
        #expect(parameters["b"] == "")
        #expect(parameters["c"] == "")
        #expect(parameters["d"] == nil)
    }

    @Test("spaces and tabs around names, equals signs and unquoted values are trimmed; inside quotes they stay")
    func whitespace() {
        let parameters = HeaderParameters("x ;\t a \t=\t 1 \t; b = \"  two  \" ;c=3")
        #expect(parameters["a"] == "1")
        #expect(parameters["b"] == "  two  ")
        #expect(parameters["c"] == "3")
    }

    @Test("keys without values, empty names and stray semicolons are skipped without losing later parameters")
    func keysWithoutValues() {
        let parameters = HeaderParameters("form-data;; ; inline; =orphan; name=ok;")
        #expect(parameters["inline"] == nil)
        #expect(parameters[""] == nil)
        #expect(parameters["name"] == "ok")
        #expect(parameters.value == "form-data")
    }

    @Test("unicode in values is kept as sent")
    func unicodeValues() {
        let parameters = HeaderParameters("form-data; filename=\"Ångström 🙂.jpg\"; name=naïve")
        #expect(parameters["filename"] == "Ångström 🙂.jpg")
        #expect(parameters["name"] == "naïve")
    }
}
