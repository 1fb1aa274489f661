@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// A server over a fresh store in its own temporary folder, for one test.
struct ServerFixture: Sendable {
    let directory: TemporaryDirectory
    var configuration: ServerConfiguration

    init(token: String? = nil, maxUploadBytes: Int64? = nil) throws {
        directory = try TemporaryDirectory("server")
        configuration = ServerConfiguration()
        configuration.port = 0
        configuration.storeDirectory = directory.appending("store")
        configuration.token = token
        if let maxUploadBytes { configuration.maxUploadBytes = maxUploadBytes }
        configuration.logger.logLevel = .warning
    }

    /// Runs `body` against the application, through the router unless `setup` says otherwise.
    func test<Value: Sendable>(
        _ setup: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = try await buildApplication(configuration)
        return try await app.test(setup) { client in try await body(client) }
    }

    /// A second handle on the same store (created when missing), to seed it or look inside.
    func store() async throws -> AttachmentStore {
        try await AttachmentStore.create(at: configuration.storeDirectory)
    }
}

/// JSON helpers for test responses.
enum JSON {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try decoder.decode(T.self, from: Data(buffer: response.body))
    }

    static func body(_ object: [String: String]) -> ByteBuffer {
        ByteBuffer(data: try! JSONSerialization.data(withJSONObject: object))
    }

    static let headers: HTTPFields = [.contentType: "application/json"]

    /// The `error.code` of a JSON error response.
    static func errorCode(_ response: TestResponse) -> String? {
        struct Document: Decodable {
            struct Detail: Decodable { let code: String; let message: String }
            let error: Detail
        }
        return try? decoder.decode(Document.self, from: Data(buffer: response.body)).error.code
    }
}

extension TestClientProtocol {
    /// Creates a note through the API and returns it.
    func createNote(title: String = "Trip", body: String = "", headers: HTTPFields = JSON.headers) async throws -> NoteResource {
        let response = try await execute(uri: "/api/notes", method: .post, headers: headers, body: JSON.body(["title": title, "body": body]))
        #expect(response.status == .created)
        return try JSON.decode(NoteResource.self, response)
    }

    /// Uploads a corpus file as a raw body and returns the attachment.
    func upload(_ corpusPath: String, to note: String, contentType: String = "image/jpeg",
                extraHeaders: HTTPFields = [:]) async throws -> AttachmentResource {
        let data = try Data(contentsOf: try Corpus.file(corpusPath))
        let name = URL(filePath: corpusPath).lastPathComponent
        var headers: HTTPFields = [.contentType: contentType]
        headers.append(contentsOf: extraHeaders)
        let response = try await execute(
            uri: "/api/notes/\(note)/attachments?filename=\(name)", method: .post,
            headers: headers, body: ByteBuffer(data: data))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try JSON.decode(AttachmentResource.self, response)
    }
}
