@testable import AttachmentClient
import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import OpenAPIRuntime
import Testing
import TestSupport

/// The parts of ``AttachmentClient`` that need no server: its error type (the server's
/// envelope read, retry decisions, descriptions), error classification, identifiers as path
/// segments, request building, the two middlewares of the generated API, remembered upload
/// addresses, ``TransferTask``'s progress and result, ``FileChunks`` reading a file from an
/// offset, and the public models made from what the server sends.
@Suite("Attachment client without a server")
struct AttachmentClientUnitTests {
    static let server = URL(string: "http://127.0.0.1:8080")!

    // MARK: - Errors

    @Test("an error answer's envelope gives the error its code and message")
    func envelope() {
        let body = Data(#"{"error":{"code":"note_not_found","message":"no note 42"}}"#.utf8)
        #expect(AttachmentClientError(status: 404, reason: "Not Found", body: body) == .server(status: 404, code: "note_not_found", message: "no note 42"))
    }

    @Test("an error answer without the envelope is named by its status and reason phrase", arguments: [
        nil, Data(), Data("<html>Bad Gateway</html>".utf8), Data(#"{"message":"x"}"#.utf8), Data(#"{"error":{"code":"x"}}"#.utf8),
        Data(#"{"error":"flat"}"#.utf8),
    ] as [Data?])
    func noEnvelope(body: Data?) {
        #expect(AttachmentClientError(status: 502, reason: "Bad Gateway", body: body) == .server(status: 502, code: "http_502", message: "Bad Gateway"))
    }

    @Test("trying again helps after a broken connection, a busy or mismatched upload, or a server error; not after a refusal", arguments: [
        (AttachmentClientError.transport("reset"), true),
        (.server(status: 409, code: "upload_offset_mismatch", message: ""), true),
        (.server(status: 423, code: "upload_busy", message: ""), true),
        (.server(status: 460, code: "checksum_mismatch", message: ""), true),
        (.server(status: 500, code: "internal_error", message: ""), true),
        (.server(status: 503, code: "too_many_uploads", message: ""), true),
        (.server(status: 507, code: "storage_failed", message: ""), true),
        (.server(status: 400, code: "bad_request", message: ""), false),
        (.server(status: 401, code: "unauthorized", message: ""), false),
        (.server(status: 404, code: "upload_not_found", message: ""), false),
        (.server(status: 410, code: "upload_expired", message: ""), false),
        (.server(status: 413, code: "upload_too_large", message: ""), false),
        (.server(status: 422, code: "empty_upload", message: ""), false),
        (.unexpectedAnswer("no Upload-Offset"), false),
        (.uploadGone, false),
    ])
    func transient(error: AttachmentClientError, transient: Bool) {
        #expect(error.isTransient == transient)
    }

    @Test("each error says what happened in words", arguments: [
        (AttachmentClientError.server(status: 404, code: "note_not_found", message: "no note 42"), "the server answered 404 note_not_found: no note 42"),
        (.transport("connection refused"), "the server could not be reached: connection refused"),
        (.unexpectedAnswer("no Location"), "the server's answer was not what the API promises: no Location"),
    ])
    func descriptions(error: AttachmentClientError, text: String) {
        #expect(error.description == text)
        #expect(AttachmentClientError.uploadGone.description.contains("upload the file again"))
    }

    @Test("cancellation stays cancellation and the client's own errors stay; a decoding failure is an unexpected answer")
    func classify() {
        #expect(AttachmentClient.classify(CancellationError()) is CancellationError)
        #expect(AttachmentClient.classify(HTTPClientError.cancelled) is CancellationError)
        #expect(AttachmentClient.classify(AttachmentClientError.uploadGone) as? AttachmentClientError == .uploadGone)
        let decoding = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not JSON"))
        guard case .unexpectedAnswer(let reason) = AttachmentClient.classify(decoding) as? AttachmentClientError else {
            Issue.record("a decoding error is not an unexpected answer")
            return
        }
        #expect(reason.contains("does not decode"))
    }

    @Test("any other failure broke the transport", arguments: [
        HTTPClientError.connectTimeout as any Error, HTTPClientError.remoteConnectionClosed, CocoaError(.fileReadUnknown), URLError(.timedOut),
    ])
    func transportFailures(error: any Error) {
        #expect(AttachmentClient.classify(error) as? AttachmentClientError == .transport(String(describing: error)))
    }

    @Test("a 2xx answer passes; anything else is thrown as the server's error")
    func checkAnswers() throws {
        for status in [200, 201, 204, 206, 299] {
            try AttachmentClient.check(HTTPClientResponse(status: .init(statusCode: status)), nil)
        }
        let body = ByteBuffer(string: #"{"error":{"code":"unauthorized","message":"send a token"}}"#)
        #expect(throws: AttachmentClientError.server(status: 401, code: "unauthorized", message: "send a token")) {
            try AttachmentClient.check(HTTPClientResponse(status: .unauthorized), body)
        }
        #expect(throws: AttachmentClientError.server(status: 304, code: "http_304", message: "Not Modified")) {
            try AttachmentClient.check(HTTPClientResponse(status: .notModified), nil)
        }
    }

    // MARK: - Requests

    @Test("identifiers made of UUID characters are path segments as they are", arguments: [
        "0b7e1c7a-1111-4222-8333-444455556666", "0B7E1C7A-AAAA-4BBB-8CCC-DDDDEEEEFFFF", "abc", String(repeating: "a", count: 64), "-",
    ])
    func segments(id: String) throws {
        #expect(try AttachmentClient.segment(id) == id)
    }

    @Test("an identifier that could reach another path or is not one is refused before any request", arguments: [
        "", "..", "../notes", "a/b", "a?b", "a#b", "a%2Fb", "a b", "0b7e1c7g", "é", String(repeating: "a", count: 65), "a\u{0}",
    ])
    func badSegments(id: String) {
        #expect(throws: AttachmentClientError.self) { try AttachmentClient.segment(id) }
    }

    @Test("a request goes to the path and query on the client's server, with the token when it has one")
    func requests() throws {
        let withToken = AttachmentClient(server: Self.server, token: "s3cret")
        let request = try withToken.request(.GET, "/api/attachments/abc/thumbnail", query: [URLQueryItem(name: "size", value: "400")])
        #expect(request.url == "http://127.0.0.1:8080/api/attachments/abc/thumbnail?size=400")
        #expect(request.method == .GET)
        #expect(request.headers["Authorization"] == ["Bearer s3cret"])
        let anonymous = try AttachmentClient(server: Self.server).request(.DELETE, "/api/notes/abc")
        #expect(anonymous.url == "http://127.0.0.1:8080/api/notes/abc")
        #expect(anonymous.method == .DELETE)
        #expect(anonymous.headers["Authorization"].isEmpty)
    }

    @Test("a bandwidth limit is at least one byte a second")
    func bandwidth() {
        #expect(AttachmentClient(server: Self.server, bandwidth: 0).bandwidth == 1)
        #expect(AttachmentClient(server: Self.server, bandwidth: -5).bandwidth == 1)
        #expect(AttachmentClient(server: Self.server, bandwidth: 1_000).bandwidth == 1_000)
        #expect(AttachmentClient(server: Self.server).bandwidth == nil)
    }

    // MARK: - The generated API's middlewares

    static let operationRequest = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/api/notes")

    @Test("the generated operations carry the bearer token when the client has one, and nothing otherwise")
    func bearerMiddleware() async throws {
        for token in ["s3cret", nil] as [String?] {
            _ = try await GeneratedAPI.BearerToken(token: token).intercept(
                Self.operationRequest, body: nil, baseURL: Self.server, operationID: "listNotes"
            ) { request, _, _ in
                #expect(request.headerFields[.authorization] == token.map { "Bearer \($0)" })
                return (HTTPResponse(status: .ok), nil)
            }
        }
    }

    @Test("a generated operation's error answer becomes the server's error with its envelope; a success passes untouched")
    func errorMiddleware() async throws {
        let middleware = GeneratedAPI.ServerErrors()
        await #expect(throws: AttachmentClientError.server(status: 404, code: "note_not_found", message: "no note x")) {
            _ = try await middleware.intercept(Self.operationRequest, body: nil, baseURL: Self.server, operationID: "getNote") { _, _, _ in
                (HTTPResponse(status: .notFound), HTTPBody(#"{"error":{"code":"note_not_found","message":"no note x"}}"#))
            }
        }
        await #expect(throws: AttachmentClientError.server(status: 503, code: "http_503", message: "Service Unavailable")) {
            _ = try await middleware.intercept(Self.operationRequest, body: nil, baseURL: Self.server, operationID: "getNote") { _, _, _ in
                (HTTPResponse(status: .serviceUnavailable), nil)
            }
        }
        let (response, body) = try await middleware.intercept(Self.operationRequest, body: nil, baseURL: Self.server, operationID: "getNote") { _, _, _ in
            (HTTPResponse(status: .created), HTTPBody("payload"))
        }
        #expect(response.status == .created)
        #expect(try await String(collecting: try #require(body), upTo: 100) == "payload")
    }

    // MARK: - Remembered uploads

    @Test("upload addresses are remembered by key, given back, forgotten when set to nil, and survive into a new instance")
    func resumptions() {
        let resumptions = UploadResumptions()
        #expect(resumptions.entries.isEmpty)
        resumptions["a"] = "/api/uploads/1"
        resumptions["b"] = "/api/uploads/2"
        resumptions["a"] = "/api/uploads/3"
        #expect(resumptions["a"] == "/api/uploads/3")
        resumptions["b"] = nil
        #expect(resumptions["b"] == nil)
        let restored = UploadResumptions(entries: resumptions.entries)
        #expect(restored.entries == ["a": "/api/uploads/3"])
    }

    // MARK: - Transfers

    @Test("a transfer's progress arrives in order and ends when its value is ready")
    func transferProgress() async throws {
        let task = TransferTask<Int, String>.start { report in
            for step in 1...5 { report(step) }
            return "done"
        }
        #expect(try await task.value == "done")
        var steps: [Int] = []
        for await step in task.progress { steps.append(step) }
        #expect(steps == [1, 2, 3, 4, 5])
    }

    @Test("a failed transfer throws its error and still ends its progress")
    func transferFailure() async throws {
        let task = TransferTask<Int, String>.start { report in
            report(1)
            throw AttachmentClientError.uploadGone
        }
        await #expect(throws: AttachmentClientError.uploadGone) { try await task.value }
        var steps: [Int] = []
        for await step in task.progress { steps.append(step) }
        #expect(steps == [1])
    }

    @Test("a cancelled transfer ends with CancellationError")
    func transferCancel() async throws {
        let (never, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = TransferTask<Int, String>.start { _ in
            // Waits for a value that never comes; cancelling the task ends the wait.
            for await _ in never {}
            continuation.finish()
            try Task.checkCancellation()
            return "never"
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        for await _ in task.progress {}
    }

    @Test("a file's chunks from an offset are its bytes from there, at most 256 KiB each, each counted", arguments: [0, 1, 300_000, 599_999] as [Int64])
    func fileChunks(offset: Int64) async throws {
        let directory = try TemporaryDirectory("file-chunks")
        let file = directory.appending("data.bin")
        let data = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try data.write(to: file)
        let counted = Counted()
        let chunks = FileChunks(path: file.path(percentEncoded: false), offset: offset, bandwidth: nil) { counted.add($0) }
        var bytes: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in chunks {
            sizes.append(chunk.readableBytes)
            bytes += chunk.readableBytesView
        }
        #expect(bytes == Array(data[Int(offset)...]))
        #expect(sizes.allSatisfy { $0 > 0 && $0 <= FileChunks.chunkSize })
        #expect(sizes.dropLast().allSatisfy { $0 == FileChunks.chunkSize })
        #expect(counted.total == 600_000 - Int(offset))
    }

    @Test("chunks from the end of a file are none; a file that cannot be read is a transport error")
    func fileChunkEdges() async throws {
        let directory = try TemporaryDirectory("file-chunks")
        let file = directory.appending("small.bin")
        try Data([1, 2, 3]).write(to: file)
        var none = 0
        for try await _ in FileChunks(path: file.path(percentEncoded: false), offset: 3, bandwidth: nil, onChunk: { _ in }) { none += 1 }
        #expect(none == 0)
        let missing = directory.appending("missing.bin").path(percentEncoded: false)
        do {
            for try await _ in FileChunks(path: missing, offset: 0, bandwidth: nil, onChunk: { _ in }) {}
            Issue.record("a missing file was read")
        } catch let error as AttachmentClientError {
            guard case .transport(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains(missing))
        }
    }

    // MARK: - Models

    /// An attachment as the server's JSON names it.
    static let attachmentJSON = """
        {"available":true,"byteCount":1234,"createdAt":"2026-11-18T11:06:40Z","displayUrl":"/d","filename":"a.jpg",
         "hash":"sha256:\(String(repeating: "ab", count: 32))","id":"a77ac4ed-1111-4222-8333-444455556666",
         "image":{"height":30,"orientation":6,"width":40},"mediaType":"image/jpeg","metadata":{"camera":"X"},
         "noteId":"0b7e1c7a-1111-4222-8333-444455556666","originalUrl":"/o","position":2,"state":"evicted",
         "thumbnailUrl":"/t","updatedAt":"2026-11-18T11:07:40Z","url":"/api/attachments/a77ac4ed-1111-4222-8333-444455556666"}
        """

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test("an attachment the server sends becomes the public model field for field, extra fields ignored")
    func attachmentModel() throws {
        let schema = try Self.decoder.decode(Components.Schemas.Attachment.self, from: Data(Self.attachmentJSON.utf8))
        let attachment = RemoteAttachment(schema)
        #expect(attachment == RemoteAttachment(
            id: "a77ac4ed-1111-4222-8333-444455556666", noteId: "0b7e1c7a-1111-4222-8333-444455556666", position: 2, filename: "a.jpg",
            mediaType: "image/jpeg", byteCount: 1_234, hash: "sha256:" + String(repeating: "ab", count: 32),
            image: .init(width: 40, height: 30, orientation: 6), state: "evicted", originalUrl: "/o", thumbnailUrl: "/t"))
        #expect(try Self.decoder.decode(RemoteAttachment.self, from: Data(Self.attachmentJSON.utf8)) == attachment,
                "the public model decodes the same JSON itself")
    }

    @Test("an image whose sizes are missing is 0 by 0 and upright; a file has no image")
    func attachmentModelDefaults() throws {
        let partial = Self.attachmentJSON.replacingOccurrences(of: #"{"height":30,"orientation":6,"width":40}"#, with: "{}")
        let image = RemoteAttachment(try Self.decoder.decode(Components.Schemas.Attachment.self, from: Data(partial.utf8))).image
        #expect(image == .init(width: 0, height: 0, orientation: 1))
        let file = Self.attachmentJSON.replacingOccurrences(of: #""image":{"height":30,"orientation":6,"width":40},"#, with: "")
        #expect(RemoteAttachment(try Self.decoder.decode(Components.Schemas.Attachment.self, from: Data(file.utf8))).image == nil)
    }

    @Test("a note page becomes notes and the next address")
    func notePageModel() throws {
        let json = """
            {"limit":2,"offset":0,"next":"/api/notes?after=1_x","notes":[
             {"body":"b","createdAt":"2026-11-18T11:06:40Z","id":"0b7e1c7a-1111-4222-8333-444455556666","title":"t",
              "updatedAt":"2026-11-18T11:06:41Z","url":"/api/notes/0b7e1c7a-1111-4222-8333-444455556666"}]}
            """
        let page = RemoteNotePage(try Self.decoder.decode(Components.Schemas.NotePage.self, from: Data(json.utf8)))
        #expect(page.next == "/api/notes?after=1_x")
        #expect(page.notes == [RemoteNote(id: "0b7e1c7a-1111-4222-8333-444455556666", title: "t", body: "b",
                                          createdAt: Date(timeIntervalSince1970: 1_795_000_000),
                                          updatedAt: Date(timeIntervalSince1970: 1_795_000_001))])
        let last = RemoteNotePage(try Self.decoder.decode(Components.Schemas.NotePage.self,
                                                          from: Data(#"{"limit":2,"offset":0,"next":null,"notes":[]}"#.utf8)))
        #expect(last == RemoteNotePage(notes: [], next: nil))
    }
}

/// A thread-safe running total for `@Sendable` callbacks.
final class Counted: Sendable {
    private let value = Mutex(0)
    func add(_ count: Int) { value.withLock { $0 += count } }
    var total: Int { value.withLock { $0 } }
}

import Synchronization
