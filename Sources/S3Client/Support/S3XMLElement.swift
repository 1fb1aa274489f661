import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed S3 XML document: element names without namespace, text, children in order.
///
/// S3's answers are small (an error, one page of a listing, an upload id), so the whole
/// tree is built in memory; bodies are capped by the caller before parsing.
struct S3XMLElement: Sendable, Equatable {
    var name: String
    var text: String = ""
    var children: [S3XMLElement] = []

    /// The first child named `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    /// Every child named `name`, in document order.
    func children(named name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func text(of name: String) -> String? { child(name)?.text }

    /// The root element of `data`.
    /// - Throws: ``S3ClientError/invalidResponse(_:)`` when `data` is not well-formed XML.
    static func parse(_ data: Data) throws(S3ClientError) -> S3XMLElement {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { String(describing: $0) } ?? "no root element"
            throw .invalidResponse("malformed XML (\(reason)): \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return root
    }

    /// Builds the tree from parser callbacks; lives only inside one ``parse(_:)`` call.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [S3XMLElement] = []
        var root: S3XMLElement?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            stack.append(S3XMLElement(name: elementName))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}
