import AttachmentStore

/// The route parameters every route group reads, checked in one place: a path parameter
/// becomes an id or a hash only here.
extension AppRequestContext {
    /// The `{id}` path parameter as a note id.
    /// - Throws: 404 `note_not_found` unless it is a UUID (a malformed id names nothing).
    func noteID() throws -> NoteID {
        NoteID(rawValue: try Identifier.parse(parameters.get("id"), kind: "note"))
    }

    /// The `{id}` path parameter as an attachment id.
    /// - Throws: 404 `attachment_not_found` unless it is a UUID.
    func attachmentID() throws -> AttachmentID {
        AttachmentID(rawValue: try Identifier.parse(parameters.get("id"), kind: "attachment"))
    }

    /// The `{hash}` path parameter.
    /// - Throws: 400 `bad_hash` unless it is 64 lowercase hexadecimal characters.
    func blobHash() throws -> BlobHash {
        guard let hash = BlobHash(rawValue: parameters.get("hash") ?? "") else {
            throw ServerError.badRequest("a blob is named by 64 lowercase hexadecimal characters", code: "bad_hash")
        }
        return hash
    }
}

/// A whole number in a query of the JSON API and the web pages (`limit`, `offset`, `after`).
enum QueryInteger {
    /// `text` as a number, or `fallback` when absent.
    /// - Throws: 400 `invalid_query` when it is not a whole number in `range`.
    static func parse(_ text: String?, name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ServerError.badRequest("`\(name)` must be a whole number in \(range.lowerBound)...\(range.upperBound)", code: "invalid_query")
        }
        return value
    }
}
