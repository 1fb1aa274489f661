import AsyncCoordination
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A client for `attach serve`'s JSON API, for apps and services: notes, attachments, uploads
/// that survive a dropped connection (tus), thumbnails by priority, and full images with
/// progress — each cancellable by cancelling the task that waits for it.
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
    /// At most this many bytes a second for uploads and full images (a metered connection).
    public let bandwidth: Int64?
    let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// A client of the server at `server`.
    /// - Parameters:
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
        self.bandwidth = bandwidth.map { max(1, $0) }
    }

    // MARK: - Notes

    /// One page of notes, most recently changed first, optionally those matching `query`.
    public func notes(matching query: String? = nil, limit: Int = 50, offset: Int = 0) async throws -> RemoteNotePage {
        var items = [URLQueryItem(name: "limit", value: String(limit)), URLQueryItem(name: "offset", value: String(offset))]
        if let query { items.append(URLQueryItem(name: "q", value: query)) }
        return try await json(.GET, "/api/notes", query: items)
    }

    /// Creates a note.
    public func createNote(title: String, body: String = "") async throws -> RemoteNote {
        try await json(.POST, "/api/notes", body: ["title": title, "body": body])
    }

    /// The note `id`.
    /// - Throws: ``AttachmentClientError/server(status:code:message:)`` with 404 when there is none.
    public func note(_ id: String) async throws -> RemoteNote {
        try await json(.GET, "/api/notes/\(try Self.segment(id))")
    }

    /// Changes a note's title and/or body; what is `nil` stays.
    public func updateNote(_ id: String, title: String? = nil, body: String? = nil) async throws -> RemoteNote {
        var change: [String: String] = [:]
        change["title"] = title
        change["body"] = body
        return try await json(.PATCH, "/api/notes/\(try Self.segment(id))", body: change)
    }

    /// Deletes a note and its attachments.
    public func deleteNote(_ id: String) async throws {
        _ = try await send(.DELETE, "/api/notes/\(try Self.segment(id))")
    }

    // MARK: - Attachments

    /// A note's attachments, in order.
    public func attachments(of note: String) async throws -> [RemoteAttachment] {
        let list: RemoteAttachmentList = try await json(.GET, "/api/notes/\(try Self.segment(note))/attachments")
        return list.attachments
    }

    /// The attachment `id`.
    public func attachment(_ id: String) async throws -> RemoteAttachment {
        try await json(.GET, "/api/attachments/\(try Self.segment(id))")
    }

    /// Moves an attachment to `position` among its note's (0 is first).
    public func moveAttachment(_ id: String, to position: Int) async throws -> RemoteAttachment {
        try await json(.PATCH, "/api/attachments/\(try Self.segment(id))", body: ["position": position])
    }

    /// Deletes an attachment; its note stays.
    public func deleteAttachment(_ id: String) async throws {
        _ = try await send(.DELETE, "/api/attachments/\(try Self.segment(id))")
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

    func json<T: Decodable>(_ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [],
                            body: (any Encodable & Sendable)? = nil) async throws -> T {
        let (_, bytes) = try await send(method, path, query: query, json: body)
        do {
            return try decoder.decode(T.self, from: Data(buffer: bytes))
        } catch {
            throw AttachmentClientError.unexpectedAnswer("\(method) \(path) did not answer with \(T.self): \(error)")
        }
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

    /// Cancellation stays cancellation; our own errors stay; anything else broke the transport.
    static func classify(_ error: any Error) -> any Error {
        if error is CancellationError || error is AttachmentClientError { return error }
        if let client = error as? HTTPClientError, client == .cancelled { return CancellationError() }
        return AttachmentClientError.transport(String(describing: error))
    }

    /// Throws the server's error for a non-2xx answer.
    static func check(_ response: HTTPClientResponse, _ bytes: ByteBuffer?) throws {
        guard !(200..<300).contains(Int(response.status.code)) else { return }
        struct Envelope: Decodable {
            struct Body: Decodable {
                var code: String
                var message: String
            }
            var error: Body
        }
        let envelope = bytes.flatMap { try? JSONDecoder().decode(Envelope.self, from: Data(buffer: $0)) }
        throw AttachmentClientError.server(status: Int(response.status.code), code: envelope?.error.code ?? "http_\(response.status.code)",
                                           message: envelope?.error.message ?? response.status.reasonPhrase)
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
