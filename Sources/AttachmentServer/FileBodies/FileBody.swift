import Foundation
import HTTPTypes

/// A response body that is a range of a file on disk, sent by the connection's
/// ``FileBodyHandler`` straight from the page cache to the socket (`sendfile`), without the
/// bytes passing through this process.
///
/// A route answers with a head that carries the file's place in ``field`` and an empty body;
/// the handler, below Hummingbird's codec, takes the field out of the head before it is
/// encoded, so a client never sees it, and sends the file range in place of the body. The
/// field travels inside the response stream itself, so a body can never be sent under the head
/// of another answer. Only connections that have the handler get such answers
/// (``FileResponse/fileBody(path:range:context:fileIO:)`` asks the connection first): not TLS,
/// whose encryption needs the bytes in memory.
struct FileBody: Equatable, Sendable {
    /// The file, by absolute path.
    let path: String
    /// The bytes of the file to send, inclusive.
    let range: ClosedRange<Int64>

    /// The response field that carries a file body from a route to ``FileBodyHandler``. No
    /// client sees it: the handler removes it from every head it passes.
    static let field = HTTPField.Name("x-attach-file-body")!

    /// The field's value: the first and last byte, then the path, percent-encoded so that any
    /// byte of a path survives HTTP's field-value rules.
    var fieldValue: String {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: Self.pathCharacters) ?? path
        return "\(range.lowerBound) \(range.upperBound) \(encoded)"
    }

    /// The file body a ``fieldValue`` names, or `nil` when `value` is not one.
    init?(fieldValue value: String) {
        let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let first = Int64(parts[0]), let last = Int64(parts[1]), first >= 0, first <= last,
              let path = String(parts[2]).removingPercentEncoding, path.hasPrefix("/")
        else { return nil }
        self.init(path: path, range: first...last)
    }

    /// The bytes `range` of the file at `path`.
    init(path: String, range: ClosedRange<Int64>) {
        self.path = path
        self.range = range
    }

    /// The characters a path keeps unencoded in ``fieldValue``.
    private static let pathCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "% "))
}
