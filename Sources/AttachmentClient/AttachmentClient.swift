import AsyncCoordination
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A client for `attach serve`'s JSON API, for apps and services: notes, attachments, uploads
/// that survive a dropped connection (tus), thumbnails by priority, and full images with
/// progress — each cancellable by cancelling the task that waits for it. The JSON operations
/// are generated from the server's own `openapi.yaml` (swift-openapi-generator), so the two
/// cannot drift; the streaming ones are written on AsyncHTTPClient.
///
/// ```swift
/// let client = AttachmentClient(server: URL(string: "http://127.0.0.1:8080")!, token: token)
/// let note = try await client.createNote(title: "Trip")
/// let upload = client.upload(fileAt: photoURL, to: note.id)
/// for await step in upload.progress { print(step.sent, "of", step.total) }
/// let photo = try await upload.value
/// let thumbnail = try await client.thumbnail(of: photo.id, size: 400, priority: .visible)
/// ```
public struct AttachmentClient: Sendable {
    /// The server's address (scheme, host and port).
    public let server: URL
    let token: String?
    let http: HTTPClient
    /// Where unfinished uploads can be continued from.
    public let resumptions: UploadResumptions
    let thumbnailSlots: AsyncGate
    /// The JSON operations, generated from the server's `openapi.yaml`.
    let api: GeneratedAPI
    /// At most this many bytes a second for uploads and full images (a metered connection).
    public let bandwidth: Int64?

    /// A client of the server at `server`.
    /// - Parameters:
    ///   - server: the server's address: scheme, host and port (`http://127.0.0.1:8080`).
    ///   - token: the server's token (`--token`), when it has one.
    ///   - httpClient: the AsyncHTTPClient to send with (the shared one by default).
    ///   - resumptions: where unfinished uploads are remembered; give the same one to a new
    ///     client to continue them.
    ///   - thumbnailConcurrency: how many thumbnails are asked for at once; the rest wait, the
    ///     `visible` ones first.
    ///   - bandwidth: at most this many bytes a second for uploads and full images; `nil` for
    ///     as fast as the connection goes.
    public init(server: URL, token: String? = nil, httpClient: HTTPClient = .shared,
                resumptions: UploadResumptions = UploadResumptions(), thumbnailConcurrency: Int = 4, bandwidth: Int64? = nil) {
        self.server = server
        self.token = token
        self.http = httpClient
        self.resumptions = resumptions
        self.thumbnailSlots = AsyncGate(slots: thumbnailConcurrency)
        self.api = GeneratedAPI(server: server, token: token, http: httpClient)
        self.bandwidth = bandwidth.map { max(1, $0) }
    }

    // MARK: - Notes (generated from the document)

    /// One page of notes, most recently changed first, optionally those matching `query`.
    public func notes(matching query: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> RemoteNotePage {
        RemoteNotePage(try await api.call { try await $0.listNotes(query: .init(q: query, limit: limit, offset: offset)).ok.body.json })
    }

    /// Creates a note.
    public func createNote(title: String, body: String = "") async throws -> RemoteNote {
        RemoteNote(try await api.call { try await $0.createNote(body: .json(.init(title: title, body: body))).created.body.json })
    }

    /// The note `id`.
    /// - Throws: ``AttachmentClientError/server(status:code:message:)`` with 404 when there is none.
    public func note(_ id: String) async throws -> RemoteNote {
        let id = try Self.segment(id)
        return RemoteNote(try await api.call { try await $0.getNote(path: .init(id: id)).ok.body.json })
    }

    /// Changes a note's title and/or body; what is `nil` stays.
    public func updateNote(_ id: String, title: String? = nil, body: String? = nil) async throws -> RemoteNote {
        let id = try Self.segment(id)
        return RemoteNote(try await api.call {
            try await $0.updateNote(path: .init(id: id), body: .json(.init(title: title, body: body))).ok.body.json
        })
    }

    /// Moves a note and its attachments to the server's trash (restorable on every peer until
    /// purged); with `purge`, deletes them for good.
    public func deleteNote(_ id: String, purge: Bool = false) async throws {
        let id = try Self.segment(id)
        _ = try await api.call { try await $0.deleteNote(path: .init(id: id), query: .init(purge: purge ? true : nil)).noContent }
    }

    // MARK: - Trash (generated from the document)

    /// What is in the server's trash, most recently deleted first.
    public func trash() async throws -> [RemoteTrashItem] {
        try await api.call { try await $0.listTrash().ok.body.json }.items.map(RemoteTrashItem.init)
    }

    /// Takes a note or an attachment out of the trash (an attachment whose note is in the trash
    /// brings the note back too).
    /// - Throws: ``AttachmentClientError/server(status:code:message:)`` with 404 `not_in_trash`.
    @discardableResult
    public func restoreFromTrash(_ id: String) async throws -> RemoteTrashItem {
        let id = try Self.segment(id)
        return RemoteTrashItem(try await api.call { try await $0.restoreTrashItem(path: .init(id: id)).ok.body.json })
    }

    // MARK: - Attachments (generated from the document)

    /// A note's attachments, in order.
    public func attachments(of note: String) async throws -> [RemoteAttachment] {
        let id = try Self.segment(note)
        return try await api.call { try await $0.listAttachments(path: .init(id: id)).ok.body.json }.attachments.map(RemoteAttachment.init)
    }

    /// The attachment `id`.
    public func attachment(_ id: String) async throws -> RemoteAttachment {
        let id = try Self.segment(id)
        return RemoteAttachment(try await api.call { try await $0.getAttachment(path: .init(id: id)).ok.body.json })
    }

    /// Moves an attachment to `position` among its note's (0 is first).
    public func moveAttachment(_ id: String, to position: Int) async throws -> RemoteAttachment {
        let id = try Self.segment(id)
        return RemoteAttachment(try await api.call {
            try await $0.moveAttachment(path: .init(id: id), body: .json(.init(position: position))).ok.body.json
        })
    }

    /// Moves an attachment to the server's trash (its note stays); with `purge`, deletes it for good.
    public func deleteAttachment(_ id: String, purge: Bool = false) async throws {
        let id = try Self.segment(id)
        _ = try await api.call { try await $0.deleteAttachment(path: .init(id: id), query: .init(purge: purge ? true : nil)).noContent }
    }

    // MARK: - Requests

    /// How long a small request may take.
    static let requestTimeout = TimeAmount.seconds(60)

    /// A request to `path` on the server, with the token.
    func request(_ method: HTTPMethod, _ path: String, query: [URLQueryItem] = []) throws -> HTTPClientRequest {
        guard var components = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw AttachmentClientError.unexpectedAnswer("\(server) is not a server address")
        }
        components.path = path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw AttachmentClientError.unexpectedAnswer("\(path) makes no address") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    /// Sends a small request and collects the answer; a non-2xx answer is thrown as
    /// ``AttachmentClientError/server(status:code:message:)``.
    func send(_ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], json body: (any Encodable & Sendable)? = nil)
        async throws -> (HTTPClientResponse, ByteBuffer) {
        var request = try request(method, path, query: query)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let response = try await execute(request, timeout: Self.requestTimeout)
        let bytes = try await collect(response.body, upTo: 16 << 20)
        try Self.check(response, bytes)
        return (response, bytes)
    }

    /// Runs a request, turning transport failures into ``AttachmentClientError/transport(_:)``
    /// and leaving cancellation as it is.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        do {
            return try await http.execute(request, timeout: timeout)
        } catch {
            throw Self.classify(error)
        }
    }

    func collect(_ body: HTTPClientResponse.Body, upTo limit: Int) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: limit)
        } catch {
            throw Self.classify(error)
        }
    }

    /// Cancellation stays cancellation; our own errors stay; an answer that does not decode is
    /// an unexpected answer; anything else broke the transport.
    static func classify(_ error: any Error) -> any Error {
        if error is CancellationError || error is AttachmentClientError { return error }
        if let client = error as? HTTPClientError, client == .cancelled { return CancellationError() }
        if error is DecodingError { return AttachmentClientError.unexpectedAnswer("the answer does not decode: \(error)") }
        return AttachmentClientError.transport(String(describing: error))
    }

    /// Throws the server's error for a non-2xx answer.
    static func check(_ response: HTTPClientResponse, _ bytes: ByteBuffer?) throws {
        guard !(200..<300).contains(Int(response.status.code)) else { return }
        throw AttachmentClientError(status: Int(response.status.code), reason: response.status.reasonPhrase, body: bytes.map { Data(buffer: $0) })
    }

    /// Waits as long as `count` bytes take at `bandwidth` bytes a second (not at all without one).
    static func pace(_ count: Int, _ bandwidth: Int64?) async throws {
        guard let bandwidth else { return }
        try await Task.sleep(for: .seconds(Double(count) / Double(bandwidth)))
    }

    /// An identifier as one path segment: only UUID characters, so no id can reach another path.
    static func segment(_ id: String) throws -> String {
        guard !id.isEmpty, id.utf8.count <= 64, id.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == "-" }) else {
            throw AttachmentClientError.unexpectedAnswer("\(id.prefix(80)) is not an identifier")
        }
        return id
    }
}
