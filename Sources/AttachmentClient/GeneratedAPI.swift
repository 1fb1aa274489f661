import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// The JSON operations of the API as swift-openapi-generator builds them from the server's own
/// `openapi.yaml` (`Client`, `Components`, `Operations`), with the two things the document
/// leaves to us: the token on every request, and the server's error envelope as an
/// ``AttachmentClientError`` for every answer that is not a success.
struct GeneratedAPI: Sendable {
    let client: Client

    init(server: URL, token: String?, http: HTTPClient) {
        client = Client(serverURL: server, transport: AsyncHTTPClientTransport(configuration: .init(client: http, timeout: .seconds(60))),
                        middlewares: [BearerToken(token: token), ServerErrors()])
    }

    /// Runs a generated operation; what a middleware or the transport threw comes out as itself
    /// (an ``AttachmentClientError``, a cancellation), not wrapped in the runtime's `ClientError`.
    func call<T: Sendable>(_ operation: (Client) async throws -> T) async throws -> T {
        do {
            return try await operation(client)
        } catch let error as ClientError {
            throw AttachmentClient.classify(error.underlyingError)
        } catch {
            throw AttachmentClient.classify(error)
        }
    }

    /// Adds `Authorization: Bearer <token>` when the client has a token.
    struct BearerToken: ClientMiddleware {
        let token: String?

        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            if let token { request.headerFields[.authorization] = "Bearer \(token)" }
            return try await next(request, body, baseURL)
        }
    }

    /// Turns an answer that is not a success into ``AttachmentClientError/server(status:code:message:)``
    /// with the code and message of the server's `{"error": {…}}` envelope.
    struct ServerErrors: ClientMiddleware {
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let (response, responseBody) = try await next(request, body, baseURL)
            guard response.status.kind != .successful else { return (response, responseBody) }
            var bytes: Data?
            if let responseBody { bytes = try await Data(collecting: responseBody, upTo: 1 << 20) }
            throw AttachmentClientError(status: response.status.code, reason: response.status.reasonPhrase, body: bytes)
        }
    }
}
