import AttachmentStore
import AttachmentSync
import Hummingbird
import Logging

/// Answers every error as `{ "error": { "code": ..., "message": ... } }` with its status:
/// ``ServerError`` as it is, store errors through ``ServerError/init(_:)``, Hummingbird's own
/// errors (unknown route, body too large) by their status, anything else as a logged 500.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let failure = Self.serverError(for: error, request: request, context: context)
            return try failure.response(from: request, context: context)
        }
    }

    /// The server error `error` means.
    static func serverError(for error: any Error, request: Request, context: Context) -> ServerError {
        switch error {
        case let error as ServerError:
            return error
        case let error as AttachmentStore.Error:
            let mapped = ServerError(error)
            if mapped.status.code >= 500 {
                context.logger.error("store error", metadata: ["error": "\(error)"])
            }
            return mapped
        case let error as SyncError:
            // The bytes were on a peer and no peer delivered them.
            context.logger.warning("peer fetch failed", metadata: ["error": "\(error)"])
            return ServerError(.badGateway, code: "peers_failed", message: "the bytes are on a peer that could not deliver them: \(error)")
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .notFound("no route \(request.method) \(request.uri.path)")
            case .methodNotAllowed: return .methodNotAllowed(request.method)
            case .contentTooLarge: return ServerError(.contentTooLarge, code: "body_too_large", message: error.body ?? "the body is too large")
            default:
                return ServerError(error.status, code: "http_\(error.status.code)", message: error.body ?? error.status.reasonPhrase)
            }
        case let error as any HTTPResponseError:
            return ServerError(error.status, code: "http_\(error.status.code)", message: error.status.reasonPhrase)
        case is CancellationError:
            return ServerError(.serviceUnavailable, code: "cancelled", message: "the server is shutting down; try again")
        default:
            context.logger.error("request failed", metadata: ["error": "\(error)", "error.type": "\(type(of: error))"])
            return .internalError
        }
    }
}

extension ServerError: ResponseGenerator {
    /// The JSON error document.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(
            ErrorDocument(error: .init(code: code, message: message)), from: request, context: context)
        response.status = status
        response.headers.append(contentsOf: headers)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// The body of every error answer.
struct ErrorDocument: Encodable {
    struct Detail: Encodable {
        let code: String
        let message: String
    }
    let error: Detail
}
