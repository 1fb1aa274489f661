import CatalogSQL
import Foundation
import Imaging

extension AttachmentStore {
    /// Everything that can go wrong in a store operation, with the context to act on it.
    ///
    /// A failed operation leaves the store as it was: nothing half-written is referenced.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// Nothing exists at the store path.
        case storeNotFound(path: String)
        /// Something exists at the path, but it is not an attachment store.
        case notAStore(path: String, reason: String)
        /// No note has this identifier (or identifier prefix).
        case noteNotFound(String)
        /// No attachment has this identifier (or identifier prefix).
        case attachmentNotFound(String)
        /// An identifier prefix matches more than one record.
        case ambiguousIdentifier(prefix: String, matches: [String])
        /// The input file does not exist or cannot be opened or read; `cause` says why.
        case sourceUnreadable(path: String, cause: Cause)
        /// The input is a directory, device or socket where a regular file was expected.
        case sourceNotAFile(path: String)
        /// Writing into the store failed; `cause` says why (a full disk, permissions, a
        /// concurrent writer of the same file).
        case writeFailed(path: String, cause: Cause)
        /// The attachment's record is here but its bytes are on another peer.
        case notAvailableLocally(AttachmentID)
        /// A blob the catalog references is missing on disk: the store is damaged.
        case blobMissing(BlobHash)
        /// Bytes read back do not hash to their name: the store or a transfer is damaged.
        case hashMismatch(expected: BlobHash, actual: BlobHash)
        /// The catalog database refused an operation; the database's own error is the cause.
        case catalog(SQLDatabaseError)
        /// The catalog's database is damaged or not a database at all.
        case catalogDamaged(SQLDatabaseError)
        /// The catalog's database server cannot be reached (PostgreSQL down or restarting);
        /// nothing was changed, and the same call can succeed once it is back.
        case catalogUnavailable(SQLDatabaseError)
        /// The catalog was migrated by a newer release of attach, whose schema this one may not
        /// read correctly; it was refused before anything was changed. The message names both
        /// releases.
        case catalogFromNewerRelease(SQLDatabaseError)
        /// A catalog row holds a blob hash that is not 64 lowercase hexadecimal digits (a
        /// tampered catalog or backup): the operation refused it before it became a path, and
        /// nothing was changed. `attach verify` lists every such row.
        case damagedCatalogRow(BlobHashColumns.Malformed)
        /// An argument was out of range or malformed.
        case invalidArgument(String)
        /// The attachment is not an image the store can read, so it has no thumbnail.
        case notAnImage(AttachmentID)
        /// The attachment is not a video the store can read, so it has no playable copy.
        case notAVideo(AttachmentID)
        /// The attachment is not a Live Photo (a still with its clip), so it has no motion original.
        case notALivePhoto(AttachmentID)
        /// The attachment claims to be an image but cannot be decoded (truncated, corrupt);
        /// `cause` is what the image pipeline found.
        case imageUnreadable(AttachmentID, cause: ImagingError)
        /// The image is over the configured pixel or byte limit; it was not decoded. `cause` is
        /// the limit it broke.
        case imageTooLarge(AttachmentID, cause: ImagingError)
        /// The store keeps its originals somewhere other than where it was opened to look
        /// (files here versus an object store, or another object store).
        case blobStorageMismatch(recorded: String, given: String)
        /// The object store holding the originals failed; nothing half-done was referenced.
        case objectStore(BlobObjectStoreError)
        /// A resumable upload refused a request; the upload is as it was.
        case upload(ResumableUploadError)
        /// A peer's pushed bytes of an original were refused; nothing stored changed.
        case pushedBlob(PushedBlobError)
        /// Nothing in the trash has this identifier (or identifier prefix).
        case notInTrash(String)
        /// The store does not hold an original hashing to this (or not of the size given), so it
        /// cannot be attached without its bytes: send them.
        case originalNotHeld(BlobHash)

        /// What went wrong, in one line, without naming any command: a program using the library
        /// adds its own advice (the `attach` command does, in `ErrorHint`).
        public var description: String {
            switch self {
            case .storeNotFound(let path):
                return "no store at \(path)"
            case .notAStore(let path, let reason):
                return "\(path) is not an attachment store: \(reason)"
            case .noteNotFound(let id):
                return "no note \(id)"
            case .attachmentNotFound(let id):
                return "no attachment \(id)"
            case .notInTrash(let id):
                return "nothing in the trash is called \(id)"
            case .originalNotHeld(let hash):
                return "this store holds no original hashing to sha256:\(hash); send its bytes"
            case .ambiguousIdentifier(let prefix, let matches):
                let shown = matches.prefix(5).joined(separator: ", ")
                return "\(prefix) matches \(matches.count) records (\(shown)); give more characters"
            case .sourceUnreadable(let path, let cause):
                return "cannot read \(path): \(cause)"
            case .sourceNotAFile(let path):
                return "\(path) is not a regular file"
            case .writeFailed(let path, let cause):
                return "cannot write \(path): \(cause); nothing was stored"
            case .notAvailableLocally(let id):
                return "the bytes of attachment \(id) are not on this machine yet (a peer has them)"
            case .blobMissing(let hash):
                return "blob \(hash) is referenced but missing on disk"
            case .hashMismatch(let expected, let actual):
                return "bytes of blob \(expected) hash to \(actual); the copy is damaged"
            case .catalog(let cause):
                return "catalog error: \(cause.message)"
            case .catalogDamaged(let cause):
                return "the catalog is damaged (\(cause.message))"
            case .catalogUnavailable(let cause):
                return "the catalog database cannot be reached (\(cause.message)); nothing was changed, try again when it is back"
            case .catalogFromNewerRelease(let cause):
                return cause.message
            case .damagedCatalogRow(let damage):
                return "the catalog is damaged: \(damage); nothing was done with it"
            case .invalidArgument(let message):
                return message
            case .notAnImage(let id):
                return "attachment \(id) is not an image this store can read, so it has no thumbnail"
            case .notAVideo(let id):
                return "attachment \(id) is not a video this store can read (MP4 or QuickTime), so it has no playable copy"
            case .notALivePhoto(let id):
                return "attachment \(id) is not a Live Photo: it has no clip kept with it"
            case .imageUnreadable(let id, let cause):
                return "the image of attachment \(id) cannot be decoded: \(cause.reason)"
            case .imageTooLarge(let id, let cause):
                return "the image of attachment \(id) is too large to decode: \(cause.reason)"
            case .blobStorageMismatch(let recorded, let given):
                return "this store keeps its originals in \(recorded), but it was opened with \(given)"
            case .objectStore(let error):
                return "\(error); nothing was stored or changed"
            case .upload(let error):
                return error.description
            case .pushedBlob(let error):
                return error.description
            }
        }
    }
}

extension AttachmentStore.Error {
    /// The store error a catalog database's failure means for a user (`.catalogUnavailable`
    /// for `.unavailable`, and so on), for sibling modules that open a catalog themselves.
    package static func catalogFailure(_ error: SQLDatabaseError) -> AttachmentStore.Error {
        Catalog.storeError(error)
    }
}
