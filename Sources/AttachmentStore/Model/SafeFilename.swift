import Foundation

/// A stored file name checked to be one plain path component: the one way a name an attachment
/// carries (from an upload, a peer, or a catalog someone edited) becomes part of a path.
///
/// It refuses what would leave the folder or lie about the file: an empty name, `.` and `..`,
/// a `/` or `\`, control characters (C0, DEL, C1), line and paragraph separators, the bidi
/// marks, embeddings, overrides and isolates (`invoice\u{202E}gpj.exe` shows as
/// `invoiceexe.jpg`), and a name longer than a file system takes (255 bytes). Letters of any
/// script, spaces and dots inside a name are fine.
///
/// ```swift
/// let file = try SafeFilename(attachment.filename).path(in: folder)
/// ```
public struct SafeFilename: Sendable, Hashable, CustomStringConvertible {
    /// Why a name cannot be a file's name in a folder.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The name is empty.
        case empty
        /// The name is `.` or `..`, which name a folder, not a file in it.
        case dotSegment(String)
        /// The name holds a `/` (or a `\`), so it would be a path, not a name.
        case separator(name: String)
        /// The name holds a control character or a line separator.
        case controlCharacter(name: String, Unicode.Scalar)
        /// The name holds a bidi mark, embedding, override or isolate.
        case bidiControl(name: String, Unicode.Scalar)
        /// The name is longer than a file system takes.
        case tooLong(name: String, bytes: Int)

        /// What is wrong, naming the name quoted (every control or bidi character escaped).
        public var description: String {
            switch self {
            case .empty:
                "an empty file name cannot name a file"
            case .dotSegment(let name):
                "the file name \(PeerText.quoted(name)) names a folder, not a file"
            case .separator(let name):
                "the file name \(PeerText.quoted(name)) holds a path separator"
            case .controlCharacter(let name, let scalar):
                "the file name \(PeerText.quoted(name)) holds the control character \(TextScalars.name(scalar))"
            case .bidiControl(let name, let scalar):
                "the file name \(PeerText.quoted(name)) holds the bidirectional formatting character \(TextScalars.name(scalar))"
            case .tooLong(let name, let bytes):
                "the file name \(PeerText.quoted(name)) is \(bytes) bytes, more than the \(SafeFilename.maximumBytes) a file system takes"
            }
        }
    }

    /// The longest name in bytes (`NAME_MAX`).
    public static let maximumBytes = 255

    /// The name, as checked.
    public let name: String

    /// Checks `name`.
    /// - Throws: ``Error`` saying what makes it unsafe.
    public init(_ name: String) throws(Error) {
        guard !name.isEmpty else { throw .empty }
        guard name != ".", name != ".." else { throw .dotSegment(name) }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { throw .separator(name: name) }
            if TextScalars.isControl(scalar) || TextScalars.isUnicodeLineBreak(scalar) { throw .controlCharacter(name: name, scalar) }
            if TextScalars.isBidiControl(scalar) || TextScalars.isBidiMark(scalar) { throw .bidiControl(name: name, scalar) }
        }
        guard name.utf8.count <= Self.maximumBytes else { throw .tooLong(name: name, bytes: name.utf8.count) }
        self.name = name
    }

    /// The file of this name in `directory`.
    public func path(in directory: URL) -> URL {
        directory.appending(path: name, directoryHint: .notDirectory)
    }

    public var description: String { name }
}
