import AttachmentStore
import Hummingbird

extension ServerError {
    /// The HTTP meaning of a store error.
    ///
    /// | store error | status | code |
    /// |---|---|---|
    /// | `noteNotFound`, `attachmentNotFound`, `notInTrash` | 404 | `note_not_found`, `attachment_not_found`, `not_in_trash` |
    /// | `originalNotHeld` | 404 | `original_not_held` |
    /// | `notAvailableLocally` | 409 | `not_available_locally` |
    /// | `invalidArgument` | 400 | `invalid_argument` |
    /// | `notAnImage` (the attachment has no thumbnail) | 404 | `not_an_image` |
    /// | `notAVideo` (the attachment has no playable copy) | 404 | `not_a_video` |
    /// | `notALivePhoto` (the attachment has no clip) | 404 | `not_a_live_photo` |
    /// | `imageUnreadable`, `imageTooLarge` | 422 | `image_unreadable`, `image_too_large` |
    /// | `writeFailed` whose cause is a full disk or quota | 507 | `storage_failed` |
    /// | `writeFailed` for any other cause (permissions, a concurrent writer) | 500 | `storage_failed` |
    /// | `objectStore` (the S3 store failed or is unreachable) | 503 | `blob_storage_unavailable` |
    /// | `catalogUnavailable` (PostgreSQL down or restarting) | 503 | `catalog_unavailable` |
    /// | `upload` | 404, 410, 409, 423, 413, 460, 400 | see the `ResumableUploadError` initialiser |
    /// | `pushedBlob` | 404, 409, 423, 413, 422 | see the `PushedBlobError` initialiser |
    /// | `blobMissing`, `hashMismatch`, `catalogDamaged`, `damagedCatalogRow`, `catalog`, others | 500 | `store_damaged` / `internal_error` |
    ///
    /// The message is the store error's own words (written once, in `AttachmentStore.Error`),
    /// except where those would tell a client more than it should learn: a failed write names
    /// no path of the server, damage names no blob, an ambiguous prefix lists no other id.
    public init(_ error: AttachmentStore.Error) {
        let words = error.description
        switch error {
        case .noteNotFound:
            self.init(.notFound, code: "note_not_found", message: words)
        case .attachmentNotFound:
            self.init(.notFound, code: "attachment_not_found", message: words)
        case .notInTrash:
            self.init(.notFound, code: "not_in_trash", message: words)
        case .originalNotHeld:
            self.init(.notFound, code: "original_not_held", message: words)
        case .notAvailableLocally:
            self.init(.conflict, code: "not_available_locally", message: words)
        case .invalidArgument:
            self.init(.badRequest, code: "invalid_argument", message: words)
        case .notAnImage:
            self.init(.notFound, code: "not_an_image", message: words)
        case .notAVideo:
            self.init(.notFound, code: "not_a_video", message: words)
        case .notALivePhoto:
            self.init(.notFound, code: "not_a_live_photo", message: words)
        case .imageUnreadable:
            self.init(.unprocessableContent, code: "image_unreadable", message: words)
        case .imageTooLarge:
            self.init(.unprocessableContent, code: "image_too_large", message: words)
        case .ambiguousIdentifier(let prefix, _):
            self.init(.notFound, code: "not_found", message: "\(prefix) is not a full identifier")
        case .writeFailed(_, let cause) where cause.isOutOfSpace:
            self.init(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "storage_failed", message: "the store's disk is full, nothing was stored: \(cause)")
        case .writeFailed(_, let cause):
            self.init(.internalServerError, code: "storage_failed", message: "the store could not write, nothing was stored: \(cause)")
        case .blobMissing, .hashMismatch, .catalogDamaged, .damagedCatalogRow:
            self.init(.internalServerError, code: "store_damaged",
                      message: "the stored bytes are damaged or missing; run `attach verify`")
        case .objectStore:
            self.init(.serviceUnavailable, code: "blob_storage_unavailable", message: words)
        case .catalogUnavailable:
            self.init(.serviceUnavailable, code: "catalog_unavailable", message: words)
        case .upload(let failure):
            self.init(failure)
        case .pushedBlob(let failure):
            self.init(failure)
        case .storeNotFound, .notAStore, .sourceUnreadable, .sourceNotAFile, .catalog, .catalogFromNewerRelease, .blobStorageMismatch:
            self = .internalError
        }
    }
}

extension ServerError {
    /// The HTTP meaning of a refused request on a resumable upload, as tus asks: 404 unknown,
    /// 410 expired, 409 wrong offset, 423 another request is writing it, 413 past its length,
    /// 460 checksum mismatch, 400 an unusable length.
    init(_ error: ResumableUploadError) {
        let message = error.description
        switch error {
        case .notFound: self.init(.notFound, code: "upload_not_found", message: message)
        case .expired: self.init(.gone, code: "upload_expired", message: message)
        case .offsetMismatch: self.init(.conflict, code: "upload_offset_mismatch", message: message)
        case .busy: self.init(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), code: "upload_busy", message: message)
        case .exceedsLength: self.init(.contentTooLarge, code: "upload_exceeds_length", message: message)
        case .checksumMismatch: self.init(HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch"), code: "checksum_mismatch", message: message)
        case .invalidLength: self.init(.badRequest, code: "invalid_upload_length", message: message)
        }
    }
}

extension ServerError {
    /// The HTTP meaning of refused pushed bytes (`PATCH /sync/blobs/{hash}`), as for a
    /// resumable upload: 404 no record wants them, 409 wrong offset (with `Upload-Offset`, the
    /// bytes held), 423 another transfer runs, 413 past the original's size, 422 wrong hash.
    init(_ error: PushedBlobError) {
        let message = error.description
        switch error {
        case .notWanted: self.init(.notFound, code: "blob_not_wanted", message: message)
        case .offsetMismatch(let expected, _):
            self.init(.conflict, code: "push_offset_mismatch", message: message)
            headers[TusProtocol.uploadOffset] = String(expected)
        case .busy: self.init(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), code: "blob_busy", message: message)
        case .exceedsSize: self.init(.contentTooLarge, code: "blob_exceeds_size", message: message)
        case .hashMismatch: self.init(.unprocessableContent, code: "hash_mismatch", message: message)
        }
    }
}
