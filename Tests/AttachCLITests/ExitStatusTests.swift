@testable import attach
import AttachmentStore
import CatalogSQL
import Imaging
import Glibc
import TestSupport
import Testing

/// How `attach` turns a store error into its documented exit code (1 for what the user can
/// fix in the input, 2 for damage or failure) and into the advice it appends (`ErrorHint`):
/// which errors get a command to run, which get none, and that the advice names the path the
/// user gave.
@Suite("attach exit codes and hints")
struct ExitStatusTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!
    static let id = AttachmentID(rawValue: "0c4f6e0a-1b2c-4d5e-8f90-a1b2c3d4e5f6")

    @Test("the documented codes are 0, 1 and 2")
    func documentedCodes() {
        #expect(ExitStatus.ok == 0 && ExitStatus.inputError == 1 && ExitStatus.damage == 2)
    }

    @Test("errors about what the user gave exit 1", arguments: [
        AttachmentStore.Error.storeNotFound(path: "/srv/p"), .notAStore(path: "/srv/p", reason: "it is a file"),
        .noteNotFound("n"), .attachmentNotFound("a"), .ambiguousIdentifier(prefix: "ab", matches: ["ab1", "ab2"]),
        .sourceNotAFile(path: "/dev/null"), .invalidArgument("bad"), .notAvailableLocally(id), .notAnImage(id),
        .imageUnreadable(id, cause: .cancelled), .imageTooLarge(id, cause: .tooManyPixels(path: "p", pixels: 900_000_000, limit: 100_000_000)),
        .upload(.offsetMismatch(expected: 1, given: 2)), .upload(.checksumMismatch),
        .blobStorageMismatch(recorded: "files", given: "s3://b"), .catalogFromNewerRelease(SQLDatabaseError(.newerSchema, "made by 0.9.0, this is 0.4.0")),
    ])
    func inputErrors(error: AttachmentStore.Error) {
        #expect(ExitStatus.code(for: error) == ExitStatus.inputError, "\(error)")
    }

    @Test("damage and failures of the store or its services exit 2", arguments: [
        AttachmentStore.Error.blobMissing(hash), .hashMismatch(expected: hash, actual: hash), .catalogDamaged(SQLDatabaseError(.corrupt, "not a database")),
        .catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")), .objectStore(.missing(hash)),
        .objectStore(.unavailable(operation: "upload", location: "s3://b", cause: .init(StubFailure("timeout")))),
    ])
    func damageErrors(error: AttachmentStore.Error) {
        #expect(ExitStatus.code(for: error) == ExitStatus.damage, "\(error)")
    }

    @Test("a failure whose message was already printed exits with its own code, untouched")
    func commandFailure() {
        for code: Int32 in [1, 2, 7] {
            #expect(ExitStatus.report(CommandFailure(code: code)) == code)
        }
    }

    @Test("a missing store is answered with the init command for the very path given")
    func storeNotFoundHint() {
        #expect(ErrorHint.hint(for: .storeNotFound(path: "/srv/my photos")) == "create one with `attach init --store /srv/my photos`")
    }

    @Test("unknown ids point at the listing that shows the right ones")
    func unknownIDHints() {
        #expect(ErrorHint.hint(for: .noteNotFound("3f2a")) == "`attach note list` shows the notes")
        #expect(ErrorHint.hint(for: .attachmentNotFound("0c4f")) == "`attach list` shows the attachments")
    }

    @Test("damage points at verify", arguments: [
        AttachmentStore.Error.blobMissing(hash), .hashMismatch(expected: hash, actual: hash), .catalogDamaged(SQLDatabaseError(.corrupt, "malformed")),
    ])
    func damageHints(error: AttachmentStore.Error) {
        #expect(ErrorHint.hint(for: error) == "run `attach verify`")
    }

    @Test("a store opened at the wrong blob location points at --blobs and ATTACH_BLOBS; remote bytes at fetch")
    func locationHints() {
        let mismatch = ErrorHint.hint(for: .blobStorageMismatch(recorded: "files", given: "s3://b"))
        #expect(mismatch?.contains("--blobs") == true && mismatch?.contains("ATTACH_BLOBS") == true)
        #expect(ErrorHint.hint(for: .notAvailableLocally(Self.id)) == "`attach fetch` brings them from a peer")
    }

    @Test("errors the message alone explains get no advice", arguments: [
        AttachmentStore.Error.notAStore(path: "/p", reason: "it is a file"), .ambiguousIdentifier(prefix: "a", matches: ["a1", "a2"]),
        .sourceNotAFile(path: "/dev/null"), .invalidArgument("bad"), .notAnImage(id), .imageUnreadable(id, cause: .cancelled),
        .imageTooLarge(id, cause: .tooManyBytes(path: "p", bytes: 2, limit: 1)), .catalogFromNewerRelease(SQLDatabaseError(.newerSchema, "newer")), .objectStore(.missing(hash)),
        .upload(.notFound(UploadID.make())),
    ])
    func noHint(error: AttachmentStore.Error) {
        #expect(ErrorHint.hint(for: error) == nil, "\(error)")
    }

    @Test("a failed write gets advice from its cause: space for a full disk, the path for permissions, none for a condition")
    func causeHints() {
        let full = ErrorHint.hint(for: .writeFailed(path: "/srv/store", cause: .system(SystemError("write", code: ENOSPC))))
        #expect(full?.contains("`attach gc`") == true && full?.contains("--max-local-bytes") == true)
        let catalogFull = ErrorHint.hint(for: .writeFailed(path: "catalog", cause: .database(SQLDatabaseError(.full, "disk full"))))
        #expect(catalogFull == full)
        let denied = ErrorHint.hint(for: .sourceUnreadable(path: "/home/me/photo.jpg", cause: .system(SystemError("open", code: EACCES))))
        #expect(denied?.contains("/home/me/photo.jpg") == true)
        #expect(ErrorHint.hint(for: .writeFailed(path: "/srv/store", cause: .condition("another download of this blob is in progress"))) == nil)
        #expect(ErrorHint.hint(for: .sourceUnreadable(path: "/x", cause: .system(SystemError("open", code: ENOENT)))) == nil)
    }

    @Test("an unreachable PostgreSQL catalog points at --catalog")
    func unavailableCatalogHint() {
        #expect(ErrorHint.hint(for: .catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")))?.contains("--catalog") == true)
    }
}
