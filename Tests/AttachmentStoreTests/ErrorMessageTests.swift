import AttachmentStore
import CatalogSQL
import Glibc
import Testing

/// The library's errors say what went wrong, name what they are about, and leave advice about
/// commands to the program using the library (`attach` adds its own).
@Suite("Store error messages")
struct ErrorMessageTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!

    @Test("every error names its subject and no command or option", arguments: [
        (AttachmentStore.Error.storeNotFound(path: "/srv/photos"), "/srv/photos"),
        (.notAStore(path: "/srv/photos", reason: "it is a file"), "it is a file"),
        (.noteNotFound("n-1"), "n-1"), (.attachmentNotFound("a-1"), "a-1"),
        (.ambiguousIdentifier(prefix: "abcd", matches: ["abcd1", "abcd2"]), "abcd1"),
        (.sourceUnreadable(path: "/tmp/x.jpg", cause: .system(SystemError("open", code: EACCES))), "Permission denied"),
        (.writeFailed(path: "/srv/photos", cause: .system(SystemError("write", code: ENOSPC))), "No space left"),
        (.notAvailableLocally(AttachmentID(rawValue: "a-2")), "a-2"),
        (.blobMissing(hash), hash.rawValue), (.hashMismatch(expected: hash, actual: hash), hash.rawValue),
        (.catalogDamaged(SQLDatabaseError(.corrupt, "file is not a database")), "not a database"),
        (.catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")), "connection refused"),
        (.blobStorageMismatch(recorded: "files in the store folder", given: "the object store s3://b"), "s3://b"),
    ])
    func messagesNameTheirSubject(error: AttachmentStore.Error, subject: String) {
        let message = "\(error)"
        #expect(message.contains(subject), "\(message)")
        #expect(!message.contains("`attach") && !message.contains(" --"), "\(message)")
    }
}
