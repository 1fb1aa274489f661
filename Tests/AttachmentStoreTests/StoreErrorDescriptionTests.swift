@testable import AttachmentStore
import CatalogSQL
import Imaging
import TestSupport
import Testing

/// The exact one-line messages of the store's errors that carry structure beyond a subject:
/// an ambiguous prefix shows at most five of its matches but counts them all, messages made
/// elsewhere pass through unchanged, object-store and upload errors keep their own words.
/// (``ErrorMessageTests`` checks that every message names its subject and no command.)
@Suite("Store error descriptions")
struct StoreErrorDescriptionTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!
    static let other = BlobHash(rawValue: String(repeating: "cd", count: 32))!
    static let upload = UploadID(rawValue: "0123456789abcdef0123456789abcdef")!

    @Test("an ambiguous prefix lists up to five matches and counts every one", arguments: [2, 5, 6, 40])
    func ambiguousPrefix(count: Int) {
        let matches = (0..<count).map { "ab\($0)" }
        let message = AttachmentStore.Error.ambiguousIdentifier(prefix: "ab", matches: matches).description
        let shown = matches.prefix(5).joined(separator: ", ")
        #expect(message == "ab matches \(count) records (\(shown)); give more characters")
        #expect(!message.contains("ab5"), "the sixth match on is not listed")
    }

    @Test("messages made by the catalog or the caller are passed on as they are")
    func passedThrough() {
        let newer = "this catalog was migrated by attach 0.9.0; this is attach 0.4.0"
        #expect(AttachmentStore.Error.catalogFromNewerRelease(SQLDatabaseError(.newerSchema, newer)).description == newer)
        #expect(AttachmentStore.Error.invalidArgument("maxPixelSize must be 1...4096").description == "maxPixelSize must be 1...4096")
        #expect(AttachmentStore.Error.upload(.checksumMismatch).description == ResumableUploadError.checksumMismatch.description)
    }

    @Test("each store error's message", arguments: [
        (AttachmentStore.Error.storeNotFound(path: "/srv/p"), "no store at /srv/p"),
        (.notAStore(path: "/srv/p", reason: "it has no catalog.sqlite"), "/srv/p is not an attachment store: it has no catalog.sqlite"),
        (.noteNotFound("3f2a"), "no note 3f2a"), (.attachmentNotFound("0c4f"), "no attachment 0c4f"),
        (.sourceNotAFile(path: "/dev/sda"), "/dev/sda is not a regular file"),
        (.notAvailableLocally(AttachmentID(rawValue: "a-1")), "the bytes of attachment a-1 are not on this machine yet (a peer has them)"),
        (.blobMissing(hash), "blob \(hash) is referenced but missing on disk"),
        (.hashMismatch(expected: hash, actual: other), "bytes of blob \(hash) hash to \(other); the copy is damaged"),
        (.catalogDamaged(SQLDatabaseError(.corrupt, "file is not a database")), "the catalog is damaged (file is not a database)"),
        (.notAnImage(AttachmentID(rawValue: "a-1")), "attachment a-1 is not an image this store can read, so it has no thumbnail"),
        (.imageUnreadable(AttachmentID(rawValue: "a-1"), cause: .unreadable(path: "/s/b/ab", cause: .libvips("/s/b/ab: truncated"))), "the image of attachment a-1 cannot be decoded: truncated"),
        (.imageTooLarge(AttachmentID(rawValue: "a-1"), cause: .tooManyPixels(path: "/s/b/ab", pixels: 900_000_000, limit: 100_000_000)), "the image of attachment a-1 is too large to decode: it declares 900 megapixels, over the limit of 100; nothing was decoded"),
        (.blobStorageMismatch(recorded: "files in the store folder", given: "s3://b/p at http://h:9000"),
         "this store keeps its originals in files in the store folder, but it was opened with s3://b/p at http://h:9000"),
    ])
    func messages(error: AttachmentStore.Error, message: String) {
        #expect(error.description == message)
    }

    @Test("an unreachable catalog says nothing was changed and the call can be repeated")
    func catalogUnavailable() {
        let message = AttachmentStore.Error.catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")).description
        #expect(message == "the catalog database cannot be reached (connection refused); nothing was changed, try again when it is back")
    }

    @Test("an object store's failure keeps its own words and adds that nothing was stored", arguments: [
        (BlobObjectStoreError.missing(hash), "the object store has no object for blob \(hash)"),
        (.corrupt(hash, reason: "hashes to \(other)"), "the object of blob \(hash) is corrupt: hashes to \(other)"),
        (.unavailable(operation: "upload", location: "s3://b at http://h:9000", cause: .init(StubFailure("HTTP 503"))),
         "cannot upload at s3://b at http://h:9000: HTTP 503"),
    ])
    func objectStoreErrors(error: BlobObjectStoreError, message: String) {
        #expect(error.description == message)
        #expect(AttachmentStore.Error.objectStore(error).description == message + "; nothing was stored or changed")
    }

    @Test("each resumable-upload refusal says what to do next", arguments: [
        (ResumableUploadError.notFound(upload), "no upload \(upload)"),
        (.expired(upload), "upload \(upload) expired; start a new one"),
        (.offsetMismatch(expected: 1024, given: 512),
         "the upload holds 1024 bytes, but the request continues at 512; ask for the offset and continue from there"),
        (.busy(upload), "upload \(upload) is being written by another request; try again when it ends"),
        (.exceedsLength(4096), "the bytes go past the upload's declared length of 4096"),
        (.checksumMismatch, "the bytes do not match the checksum sent with them, so they were dropped; send them again"),
        (.invalidLength(-1), "an upload's length must be at least 1 byte, not -1"),
    ])
    func uploadErrors(error: ResumableUploadError, message: String) {
        #expect(error.description == message)
        #expect(AttachmentStore.Error.upload(error).description == message)
    }
}
