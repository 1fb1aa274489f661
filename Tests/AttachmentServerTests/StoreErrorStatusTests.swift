import AttachmentServer
import AttachmentStore
import CatalogSQL
import Glibc
import Testing

/// The server answers a failed write by its cause: only a full disk or quota is 507
/// Insufficient Storage (a client may retry later or elsewhere); a permission problem or a
/// concurrent writer is the server's own fault, a 500. Both keep the `storage_failed` code.
@Suite("Store error statuses")
struct StoreErrorStatusTests {
    @Test("a write that failed for lack of space answers 507", arguments: [ENOSPC, EDQUOT, EFBIG])
    func outOfSpaceIs507(code: Int32) {
        let error = ServerError(AttachmentStore.Error.writeFailed(path: "/srv/store", cause: .system(SystemError("write", code: code))))
        #expect(error.status.code == 507)
        #expect(error.code == "storage_failed")
        #expect(!error.message.contains("/srv/store"), "the server's paths stay private: \(error.message)")
    }

    @Test("a catalog whose disk is full answers 507 too")
    func fullCatalogIs507() {
        let error = ServerError(AttachmentStore.Error.writeFailed(path: "catalog", cause: .database(SQLDatabaseError(.full, "database or disk is full"))))
        #expect(error.status.code == 507)
        #expect(error.message.contains("No space left on device"))
    }

    @Test("a write refused for permissions or by the store itself answers 500", arguments: [
        AttachmentStore.Error.Cause.system(SystemError("open", code: EACCES)),
        .system(SystemError("rename", code: EROFS)),
        .condition("another download of this blob is in progress"),
    ])
    func otherCausesAre500(cause: AttachmentStore.Error.Cause) {
        let error = ServerError(AttachmentStore.Error.writeFailed(path: "/srv/store", cause: cause))
        #expect(error.status.code == 500)
        #expect(error.code == "storage_failed")
    }

    @Test("an unreachable catalog answers 503 with the database's reason")
    func unavailableCatalogIs503() {
        let error = ServerError(AttachmentStore.Error.catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")))
        #expect(error.status.code == 503)
        #expect(error.code == "catalog_unavailable")
        #expect(error.message.contains("connection refused"))
    }
}
