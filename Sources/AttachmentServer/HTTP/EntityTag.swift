import AttachmentStore

/// Strong entity tags made from content hashes: a blob's hash names its bytes, so the tag
/// changes exactly when the bytes do.
enum EntityTag {
    /// `"<hex sha256>"`, quoted as HTTP requires.
    static func of(_ hash: BlobHash) -> String { "\"\(hash.rawValue)\"" }

    /// Whether an `If-None-Match` header matches `tag` (`*`, a list, weak or strong forms).
    static func ifNoneMatch(_ header: String?, matches tag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { candidate in
            var value = candidate.trimmingCharacters(in: .whitespaces)
            if value == "*" { return true }
            if value.hasPrefix("W/") { value.removeFirst(2) }
            return value == tag
        }
    }

    /// Whether an `If-Range` header still names this representation; a date or another tag does not.
    static func ifRange(_ header: String?, matches tag: String) -> Bool {
        guard let header else { return true }
        return header.trimmingCharacters(in: .whitespaces) == tag
    }
}

import Foundation
