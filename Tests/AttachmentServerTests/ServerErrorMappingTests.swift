@testable import AttachmentServer
import AttachmentStore
import AttachmentSync
import CatalogSQL
import Imaging
import Glibc
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import TestSupport
import Testing

/// How every failure becomes an HTTP answer, without a server: each store error and each
/// resumable-upload refusal mapped to its status and stable code, the headers the ready-made
/// errors carry, ``ErrorMiddleware/serverError(for:request:context:)`` for the error types it
/// sorts (Hummingbird's own, sync failures, cancellation, anything else), and the JSON error
/// document every error is answered with.
@Suite("Server errors: status and code of every failure")
struct ServerErrorMappingTests {
    /// A logger that keeps the expected error logs of these tests out of the output.
    static var quietLogger: Logger {
        var logger = Logger(label: "unit-tests")
        logger.logLevel = .critical
        return logger
    }

    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!
    static let otherHash = BlobHash(rawValue: String(repeating: "cd", count: 32))!
    static let attachment = AttachmentID(rawValue: "0b7e1c7a-0000-4000-8000-00000000000a")
    static let upload = UploadID(rawValue: String(repeating: "0f", count: 16))!

    /// A context as the router makes one, on a channel that is never connected.
    static func context() -> AppRequestContext {
        AppRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: Self.quietLogger))
    }

    static func request(_ method: HTTPRequest.Method = .get, _ path: String = "/api/things") -> Request {
        Request(head: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path), body: RequestBody(buffer: ByteBuffer()))
    }

    @Test("each client-side store error has its own status and code", arguments: [
        (AttachmentStore.Error.noteNotFound("n1"), 404, "note_not_found"),
        (.attachmentNotFound("a1"), 404, "attachment_not_found"),
        (.notAvailableLocally(attachment), 409, "not_available_locally"),
        (.invalidArgument("position must be positive"), 400, "invalid_argument"),
        (.notAnImage(attachment), 404, "not_an_image"),
        (.imageUnreadable(attachment, cause: .unreadable(path: "p", cause: .libvips("truncated"))), 422, "image_unreadable"),
        (.imageTooLarge(attachment, cause: .tooManyPixels(path: "p", pixels: 10_000_000_000, limit: 100_000_000)), 422, "image_too_large"),
        (.ambiguousIdentifier(prefix: "ab", matches: ["ab1", "ab2"]), 404, "not_found"),
    ] as [(AttachmentStore.Error, Int, String)])
    func clientErrors(error: AttachmentStore.Error, status: Int, code: String) {
        let mapped = ServerError(error)
        #expect(mapped.status.code == status)
        #expect(mapped.code == code)
        #expect(mapped.headers.isEmpty)
    }

    @Test("errors of the store's storage are 5xx with codes that say whether trying again can help", arguments: [
        (AttachmentStore.Error.writeFailed(path: "/store/blobs/x", cause: .system(SystemError("write", code: ENOSPC))), 507, "storage_failed"),
        (.blobMissing(hash), 500, "store_damaged"),
        (.hashMismatch(expected: hash, actual: otherHash), 500, "store_damaged"),
        (.catalogDamaged(SQLDatabaseError(.corrupt, "file is not a database")), 500, "store_damaged"),
        (.objectStore(.unavailable(operation: "put", location: "s3://bucket", cause: .init(StubFailure("503 Slow Down")))), 503, "blob_storage_unavailable"),
        (.objectStore(.missing(hash)), 503, "blob_storage_unavailable"),
        (.catalogUnavailable(SQLDatabaseError(.unavailable, "connection refused")), 503, "catalog_unavailable"),
    ] as [(AttachmentStore.Error, Int, String)])
    func storageErrors(error: AttachmentStore.Error, status: Int, code: String) {
        let mapped = ServerError(error)
        #expect(mapped.status.code == status)
        #expect(mapped.code == code)
    }

    @Test("store errors a request cannot cause are the generic 500, which names no path or reason", arguments: [
        AttachmentStore.Error.storeNotFound(path: "/secret/store"),
        .notAStore(path: "/secret/store", reason: "no catalog"),
        .sourceUnreadable(path: "/secret/in.jpg", cause: .system(SystemError("open", code: EACCES))),
        .sourceNotAFile(path: "/secret/dir"),
        .catalog(SQLDatabaseError(.constraint, "UNIQUE constraint failed: notes.id")),
        .catalogFromNewerRelease(SQLDatabaseError(.newerSchema, "migrated by attach 9.0")),
        .blobStorageMismatch(recorded: "s3://a", given: "files"),
    ])
    func internalErrors(error: AttachmentStore.Error) {
        let mapped = ServerError(error)
        #expect(mapped == .internalError)
        #expect(!mapped.message.contains("/secret"))
        #expect(!mapped.message.contains("UNIQUE"))
    }

    @Test("the messages of mapped errors name what the client asked for, and the storage message keeps the reason but not the path")
    func mappedMessages() {
        #expect(ServerError(.noteNotFound("7f00")).message == "no note 7f00")
        #expect(ServerError(.attachmentNotFound("a1")).message == "no attachment a1")
        #expect(ServerError(.invalidArgument("title too long")).message == "title too long")
        #expect(ServerError(.ambiguousIdentifier(prefix: "ab", matches: ["ab1", "ab2"])).message == "ab is not a full identifier")
        let write = ServerError(.writeFailed(path: "/var/store/blobs/tmp", cause: .system(SystemError("write", code: ENOSPC))))
        #expect(write.message.contains("No space left on device"))
        #expect(!write.message.contains("/var/store"))
        #expect(write.status.reasonPhrase == "Insufficient Storage")
        #expect(ServerError(.blobMissing(Self.hash)).message.contains("attach verify"))
    }

    @Test("a refused resumable upload gets the status tus gives it and a code of its own", arguments: [
        (ResumableUploadError.notFound(upload), 404, "upload_not_found"),
        (.expired(upload), 410, "upload_expired"),
        (.offsetMismatch(expected: 100, given: 50), 409, "upload_offset_mismatch"),
        (.busy(upload), 423, "upload_busy"),
        (.exceedsLength(1_000), 413, "upload_exceeds_length"),
        (.checksumMismatch, 460, "checksum_mismatch"),
        (.invalidLength(0), 400, "invalid_upload_length"),
    ] as [(ResumableUploadError, Int, String)])
    func uploadErrors(error: ResumableUploadError, status: Int, code: String) {
        let direct = ServerError(error)
        #expect(direct.status.code == status)
        #expect(direct.code == code)
        #expect(direct.message == error.description)
        #expect(ServerError(AttachmentStore.Error.upload(error)) == direct, "wrapped in a store error it maps the same")
    }

    @Test("the tus statuses outside HTTP's registry carry their own reason phrases")
    func unregisteredStatuses() {
        #expect(ServerError(ResumableUploadError.busy(Self.upload)).status.reasonPhrase == "Locked")
        #expect(ServerError(ResumableUploadError.checksumMismatch).status.reasonPhrase == "Checksum Mismatch")
    }

    @Test("the ready-made errors carry the headers their status calls for")
    func readyMadeErrors() {
        #expect(ServerError.unauthorized.status == .unauthorized)
        #expect(ServerError.unauthorized.headers[.wwwAuthenticate] == "Bearer realm=\"attach\"")
        let scope = ServerError.insufficientScope(.syncRead)
        #expect(scope.status == .forbidden && scope.code == "insufficient_scope")
        #expect(scope.message.contains("sync-read"))
        #expect(scope.headers[.wwwAuthenticate] == "Bearer realm=\"attach\", error=\"insufficient_scope\"")
        #expect(ServerError.tooManyUploads.status == .serviceUnavailable)
        #expect(ServerError.tooManyUploads.headers[.retryAfter] == "5")
        let slow = ServerError.uploadTooSlow(UploadRate(minimumBytesPerSecond: 4096, window: .seconds(30)))
        #expect(slow.status == .requestTimeout && slow.code == "upload_too_slow")
        #expect(slow.headers[.connection] == "close", "the connection is closed after the answer")
        #expect(slow.message.contains("4096 bytes/s over 30 s"))
        let large = ServerError.uploadTooLarge(limit: 1_024)
        #expect(large.status == .contentTooLarge && large.code == "upload_too_large" && large.message.contains("1024"))
        #expect(ServerError.methodNotAllowed(.patch).message == "PATCH is not allowed here")
        #expect(ServerError.notFound().code == "not_found" && ServerError.notFound().status == .notFound)
        #expect(ServerError.badRequest("x").code == "bad_request")
        #expect(ServerError.unsupportedMediaType("send JSON").code == "unsupported_media_type")
        #expect(ServerError.unprocessable("empty", code: "empty_upload").status == .unprocessableContent)
    }

    @Test("an error describes itself for logs as status, code and message")
    func description() {
        #expect(ServerError(.noteNotFound("n1")).description == "404 note_not_found: no note n1")
        #expect(ServerError.internalError.description == "500 internal_error: the server failed; the log has the details")
    }

    @Test("the error middleware keeps a server error as it is and maps a store error")
    func middlewarePassesServerErrors() {
        let context = Self.context()
        let own = ServerError(.conflict, code: "mine", message: "as thrown", headers: [.retryAfter: "1"])
        #expect(ErrorMiddleware.serverError(for: own, request: Self.request(), context: context) == own)
        let store = ErrorMiddleware.serverError(for: AttachmentStore.Error.noteNotFound("n9"), request: Self.request(), context: context)
        #expect(store == ServerError(.noteNotFound("n9")))
    }

    @Test("the router's own 404 and 405 name the method and path; its 413 is body_too_large")
    func middlewareMapsRouterErrors() {
        let context = Self.context()
        let request = Self.request(.delete, "/no/such/route")
        let notFound = ErrorMiddleware.serverError(for: HTTPError(.notFound), request: request, context: context)
        #expect(notFound.status == .notFound && notFound.code == "not_found")
        #expect(notFound.message == "no route DELETE /no/such/route")
        let notAllowed = ErrorMiddleware.serverError(for: HTTPError(.methodNotAllowed), request: request, context: context)
        #expect(notAllowed.code == "method_not_allowed" && notAllowed.message.contains("DELETE"))
        let tooLarge = ErrorMiddleware.serverError(for: HTTPError(.contentTooLarge, message: "at most 1 MiB"), request: request, context: context)
        #expect(tooLarge.status == .contentTooLarge && tooLarge.code == "body_too_large" && tooLarge.message == "at most 1 MiB")
        let bare = ErrorMiddleware.serverError(for: HTTPError(.contentTooLarge), request: request, context: context)
        #expect(bare.message == "the body is too large")
    }

    @Test("any other HTTP error keeps its status under an http_<status> code", arguments: [
        (HTTPResponse.Status.badRequest, "bad request body", "bad request body"),
        (.unsupportedMediaType, nil, "Unsupported Media Type"),
        (.requestHeaderFieldsTooLarge, nil, "Request Header Fields Too Large"),
    ] as [(HTTPResponse.Status, String?, String)])
    func middlewareMapsOtherHTTPErrors(status: HTTPResponse.Status, message: String?, expected: String) {
        let error = message.map { HTTPError(status, message: $0) } ?? HTTPError(status)
        let mapped = ErrorMiddleware.serverError(for: error, request: Self.request(), context: Self.context())
        #expect(mapped.status == status)
        #expect(mapped.code == "http_\(status.code)")
        #expect(mapped.message == expected)
    }

    @Test("a peer that could not deliver is a 502, a cancelled request a 503, and anything unknown the generic 500")
    func middlewareMapsTheRest() {
        let context = Self.context()
        let peers = ErrorMiddleware.serverError(
            for: SyncError.blobUnavailable(hash: Self.hash, failures: [.peerUnreachable(peer: "http://a:1", reason: "peer down")]), request: Self.request(), context: context)
        #expect(peers.status == .badGateway && peers.code == "peers_failed")
        let cancelled = ErrorMiddleware.serverError(for: CancellationError(), request: Self.request(), context: context)
        #expect(cancelled.status == .serviceUnavailable && cancelled.code == "cancelled")
        struct Unexpected: Error {}
        #expect(ErrorMiddleware.serverError(for: Unexpected(), request: Self.request(), context: context) == .internalError)
        #expect(ErrorMiddleware.serverError(for: CocoaError(.fileReadNoPermission), request: Self.request(), context: context) == .internalError)
    }

    @Test("an error is answered as the JSON error document, with its headers and never cached")
    func errorDocument() async throws {
        let error = ServerError(.rangeNotSatisfiable, code: "range_not_satisfiable", message: "outside the 10 bytes",
                                headers: [.contentRange: "bytes */10"])
        let response = try error.response(from: Self.request(), context: Self.context())
        #expect(response.status == .rangeNotSatisfiable)
        #expect(response.headers[.contentRange] == "bytes */10")
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
        let body = try await BodyCollector.bytes(of: response)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object.keys.sorted() == ["error"])
        let detail = try #require(object["error"] as? [String: String])
        #expect(detail == ["code": "range_not_satisfiable", "message": "outside the 10 bytes"])
    }
}

/// Gathers what a response body writes, to read an answer made without a server.
struct BodyCollector: ResponseBodyWriter {
    /// The bytes written so far, shared with the copy `bytes(of:)` keeps.
    final class Storage: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    let storage = Storage()

    mutating func write(_ buffer: ByteBuffer) async throws {
        storage.bytes.withLock { $0 += buffer.readableBytesView }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}

    /// The whole body of `response`.
    static func bytes(of response: Response) async throws -> [UInt8] {
        let collector = BodyCollector()
        try await response.body.write(collector)
        return collector.storage.bytes.withLock { $0 }
    }
}
