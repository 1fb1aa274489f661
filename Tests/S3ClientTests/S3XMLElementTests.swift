import Foundation
@testable import S3Client
import Testing

/// `S3XMLElement`, the small tree S3's XML answers are read into: namespaces dropped from
/// names, text decoded and kept whole (whitespace included, as in object keys), children found
/// by name in document order, and malformed or hostile documents refused or defused — external
/// entities never read, entity expansion bombs stopped.
@Suite("S3 XML: parsing answers into a tree")
struct S3XMLElementTests {
    static func parse(_ text: String) throws(S3ClientError) -> S3XMLElement {
        try S3XMLElement.parse(Data(text.utf8))
    }

    /// The reason `text` is refused with, nil when it parses.
    static func refusal(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            guard case .invalidResponse(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    // MARK: - Names and structure

    @Test("S3's default namespace is dropped from every element name")
    func defaultNamespace() throws {
        let root = try Self.parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>photos</Name><KeyCount>0</KeyCount></ListBucketResult>
            """)
        #expect(root.name == "ListBucketResult")
        #expect(root.children.map(\.name) == ["Name", "KeyCount"])
        #expect(root.text(of: "Name") == "photos")
    }

    @Test("a namespace prefix is dropped too, so s3:Error reads as Error")
    func prefixedNamespace() throws {
        let root = try Self.parse(#"<s3:Error xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Code>NoSuchKey</s3:Code></s3:Error>"#)
        #expect(root.name == "Error")
        #expect(root.text(of: "Code") == "NoSuchKey")
    }

    @Test("children keep document order; child(_:) finds the first of a name, children(named:) all of it")
    func childLookup() throws {
        let root = try Self.parse("<R><A>1</A><B>x</B><A>2</A><C/><A>3</A></R>")
        #expect(root.children.map(\.name) == ["A", "B", "A", "C", "A"])
        #expect(root.child("A")?.text == "1")
        #expect(root.children(named: "A").map(\.text) == ["1", "2", "3"])
        #expect(root.children(named: "Z").isEmpty)
        #expect(root.child("Z") == nil)
        #expect(root.text(of: "Z") == nil)
        #expect(root.text(of: "C") == "", "an empty element has empty text, not none")
    }

    @Test("lookups look at direct children only, not deeper descendants")
    func directChildrenOnly() throws {
        let root = try Self.parse("<R><Contents><Key>deep</Key></Contents></R>")
        #expect(root.child("Key") == nil)
        #expect(root.child("Contents")?.text(of: "Key") == "deep")
    }

    @Test("element names are matched with their case")
    func caseSensitiveNames() throws {
        let root = try Self.parse("<R><key>lower</key><Key>upper</Key></R>")
        #expect(root.text(of: "Key") == "upper")
        #expect(root.text(of: "key") == "lower")
        #expect(root.text(of: "KEY") == nil)
    }

    @Test("attributes are ignored; the element and its text remain")
    func attributesIgnored() throws {
        let root = try Self.parse(#"<R><Owner id="1" type="x">alice</Owner></R>"#)
        #expect(root.child("Owner") == S3XMLElement(name: "Owner", text: "alice"))
    }

    // MARK: - Text

    @Test("predefined and numeric character references are decoded, and text split by them is joined")
    func entitiesDecoded() throws {
        let root = try Self.parse("<R><Key>a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#x1F4F7; &#233;</Key></R>")
        #expect(root.text(of: "Key") == "a&b <c> \"d\" 'e' 📷 é")
    }

    @Test("whitespace in text is kept as sent: keys may begin or end with spaces")
    func whitespaceKept() throws {
        let root = try Self.parse("<R><Key>  two  spaces  </Key><Key>\ttab\n</Key></R>")
        #expect(root.children(named: "Key").map(\.text) == ["  two  spaces  ", "\ttab\n"])
    }

    @Test("UTF-8 text outside ASCII reads back unchanged")
    func unicodeText() throws {
        let root = try Self.parse("<R><Key>фото/写真/ünï.jpg</Key></R>")
        #expect(root.text(of: "Key") == "фото/写真/ünï.jpg")
    }

    @Test("a parent's own text is collected apart from its children's")
    func mixedContent() throws {
        let root = try Self.parse("<R>before<A>inside</A>after</R>")
        #expect(root.text == "beforeafter")
        #expect(root.text(of: "A") == "inside")
    }

    // MARK: - Malformed documents

    @Test("documents that are not well-formed XML are refused as invalid responses", arguments: [
        "not xml at all",
        "<ListBucketResult><Contents><Key>a</Key>",
        "<a><b></a>",
        "<a>",
        "{\"Error\": \"json\"}",
        "<R><Key>a & b</Key></R>",
    ])
    func malformedRefused(text: String) throws {
        let reason = try #require(Self.refusal(text))
        #expect(reason.hasPrefix("malformed XML ("))
    }

    @Test("an empty body has no root element and is refused")
    func emptyBody() throws {
        let reason = try #require(Self.refusal(""))
        #expect(reason.hasPrefix("malformed XML ("))
        #expect(reason.hasSuffix("): "), "the body quoted after the reason is empty")
    }

    @Test("a refusal quotes at most the first 200 bytes of the body")
    func refusalQuotesPrefix() throws {
        let body = "<Unclosed>" + String(repeating: "a", count: 190) + "TAIL" + String(repeating: "b", count: 500)
        let reason = try #require(Self.refusal(body))
        #expect(reason.hasSuffix(": " + String(body.prefix(200))))
        #expect(!reason.contains("TAIL"))
    }

    // MARK: - Hostile documents

    @Test("an external entity is never resolved: a file it names does not reach the text")
    func externalEntityNotResolved() throws {
        let secret = try String(contentsOfFile: "/etc/passwd", encoding: .utf8).prefix(4)
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <r><Key>&xxe;</Key></r>
            """
        let root = try Self.parse(text)
        #expect(root.text(of: "Key")?.contains(String(secret)) == false)
        #expect(root.text(of: "Key") == "")
    }

    @Test("an entity expansion bomb is refused quickly instead of being expanded")
    func billionLaughsRefused() throws {
        var text = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        var previous = "lol"
        for level in 1...9 {
            text += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
            previous = "lol\(level)"
        }
        text += "]><lolz>&lol9;</lolz>"
        let reason = try #require(Self.refusal(text))
        #expect(reason.hasPrefix("malformed XML ("))
    }

    @Test("deeply nested elements build a tree of that depth without trouble")
    func deepNesting() throws {
        let depth = 200
        let text = String(repeating: "<n>", count: depth) + "leaf" + String(repeating: "</n>", count: depth)
        var element = try Self.parse(text)
        var levels = 1
        while let next = element.child("n") {
            element = next
            levels += 1
        }
        #expect(levels == depth)
        #expect(element.text == "leaf")
    }
}
