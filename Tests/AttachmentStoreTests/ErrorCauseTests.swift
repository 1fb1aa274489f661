import AttachmentStore
import CatalogSQL
import Foundation
import Glibc
import Testing
import TestSupport

/// A file or catalog failure carries its cause — the system's error number or the database's
/// classified error — so a program chooses what to do (the CLI's hint, the server's status)
/// from the cause, not from the words of the message.
@Suite("Store error causes")
struct ErrorCauseTests {
    @Test("a full disk, a full quota and a file past the file system's limit are all out of space", arguments: [ENOSPC, EDQUOT, EFBIG])
    func outOfSpaceNumbers(code: Int32) {
        let cause = AttachmentStore.Error.Cause.system(SystemError("write", code: code))
        #expect(cause.isOutOfSpace)
        #expect(!cause.isPermissionDenied)
    }

    @Test("permissions, an operation not permitted and a read-only mount are all permission problems", arguments: [EACCES, EPERM, EROFS])
    func permissionNumbers(code: Int32) {
        let cause = AttachmentStore.Error.Cause.system(SystemError("open", code: code))
        #expect(cause.isPermissionDenied)
        #expect(!cause.isOutOfSpace)
    }

    @Test("other system errors are neither, and their words are the system's own")
    func otherNumbers() {
        let cause = AttachmentStore.Error.Cause.system(SystemError("open", code: ENOENT))
        #expect(!cause.isOutOfSpace && !cause.isPermissionDenied)
        #expect(cause.description == "No such file or directory")
        #expect(SystemError("rename", code: ENOSPC).description == "rename: No space left on device")
    }

    @Test("a catalog database whose disk is full is out of space, and says so in the system's words")
    func fullDatabase() {
        let cause = AttachmentStore.Error.Cause.database(SQLDatabaseError(.full, "database or disk is full"))
        #expect(cause.isOutOfSpace)
        #expect(cause.description == "No space left on device")
        let refused = AttachmentStore.Error.Cause.database(SQLDatabaseError(.constraint, "UNIQUE constraint failed"))
        #expect(!refused.isOutOfSpace)
        #expect(refused.description == "UNIQUE constraint failed")
    }

    @Test("a condition the store found is neither out of space nor a permission problem, and reads as written")
    func conditions() {
        let cause = AttachmentStore.Error.Cause.condition("another download of this blob is in progress")
        #expect(!cause.isOutOfSpace && !cause.isPermissionDenied)
        #expect("\(AttachmentStore.Error.writeFailed(path: "/srv/x", cause: cause))"
            == "cannot write /srv/x: another download of this blob is in progress; nothing was stored")
    }

    @Test("a Foundation write that failed for a missing folder becomes the system error it wraps")
    func foundationErrorsKeepTheirNumber() throws {
        let directory = try TemporaryDirectory("cause")
        let target = directory.url.appending(path: "no-such-folder/file.bin")
        do {
            try Data([1, 2, 3]).write(to: target)
            Issue.record("writing into a missing folder succeeded")
        } catch {
            let cause = AttachmentStore.Error.Cause(error)
            guard case .system(let system) = cause else {
                Issue.record("expected a system cause, got \(cause)")
                return
            }
            #expect(system.errno == .noSuchFileOrDirectory)
        }
    }

    @Test("a system error passed as any Error is kept as it is")
    func systemErrorsPassThrough() {
        let error: any Error = SystemError("fdatasync", code: EIO)
        #expect(AttachmentStore.Error.Cause(error) == .system(SystemError("fdatasync", code: EIO)))
    }

    @Test("the catalog errors carry the database's classified error and show its message")
    func catalogErrorsCarryTheDatabaseError() {
        let unavailable = SQLDatabaseError(.unavailable, "connection refused")
        let error = AttachmentStore.Error.catalogUnavailable(unavailable)
        guard case .catalogUnavailable(let cause) = error else { return }
        #expect(cause.kind == .unavailable)
        #expect("\(error)".contains("connection refused"))
        #expect("\(AttachmentStore.Error.catalog(SQLDatabaseError(.other, "syntax error")))" == "catalog error: syntax error")
    }
}
