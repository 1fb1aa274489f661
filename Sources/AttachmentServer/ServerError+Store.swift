import AttachmentStore
import Hummingbird

extension ServerError {
    /// The HTTP meaning of a store error.
    ///
    /// | store error | status | code |
    /// |---|---|---|
    /// | `noteNotFound`, `attachmentNotFound` | 404 | `note_not_found`, `attachment_not_found` |
    /// | `notAvailableLocally` | 409 | `not_available_locally` |
    /// | `invalidArgument` | 400 | `invalid_argument` |
    /// | `writeFailed` | 507 | `storage_failed` |
    /// | `blobMissing`, `hashMismatch`, `catalog`, others | 500 | `store_damaged` / `internal_error` |
    public init(_ error: AttachmentStore.Error) {
        switch error {
        case .noteNotFound(let id):
            self.init(.notFound, code: "note_not_found", message: "no note \(id)")
        case .attachmentNotFound(let id):
            self.init(.notFound, code: "attachment_not_found", message: "no attachment \(id)")
        case .notAvailableLocally(let id):
            self.init(.conflict, code: "not_available_locally",
                      message: "the bytes of attachment \(id) are on a peer, not on this server yet")
        case .invalidArgument(let message):
            self.init(.badRequest, code: "invalid_argument", message: message)
        case .ambiguousIdentifier(let prefix, _):
            self.init(.notFound, code: "not_found", message: "\(prefix) is not a full identifier")
        case .writeFailed(_, let reason):
            self.init(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "storage_failed", message: "the store could not write: \(reason)")
        case .blobMissing, .hashMismatch:
            self.init(.internalServerError, code: "store_damaged",
                      message: "the stored bytes are damaged or missing; run `attach verify`")
        case .storeNotFound, .notAStore, .sourceUnreadable, .sourceNotAFile, .catalog:
            self = .internalError
        }
    }
}
