import AttachmentStore
import Foundation
import Hummingbird

/// The one error type of the HTTP layer: a status, a stable machine-readable code and a
/// message a person can act on, answered as `{ "error": { "code": ..., "message": ... } }`.
///
/// Store errors become server errors here, at the edge, through ``init(_:)``.
public struct ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status to answer with.
    public var status: HTTPResponse.Status
    /// A stable, snake_case code clients can switch on, for example `note_not_found`.
    public var code: String
    /// A sentence saying what went wrong.
    public var message: String
    /// Extra response headers (for example `Content-Range` on a 416).
    public var headers: HTTPFields = [:]

    /// Creates an error answered with `status`.
    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// `404 note_not_found: no note …`, for logs.
    public var description: String { "\(status.code) \(code): \(message)" }

    /// 400: the request is malformed.
    static func badRequest(_ message: String, code: String = "bad_request") -> ServerError {
        ServerError(.badRequest, code: code, message: message)
    }

    /// 404: nothing at this address.
    static func notFound(_ message: String = "nothing here", code: String = "not_found") -> ServerError {
        ServerError(.notFound, code: code, message: message)
    }

    /// 413: the upload is larger than the configured limit.
    static func uploadTooLarge(limit: Int64) -> ServerError {
        ServerError(.contentTooLarge, code: "upload_too_large",
                    message: "the upload is larger than the limit of \(limit) bytes")
    }

    /// 408: the upload arrived slower than the configured minimum rate; the connection is
    /// closed after this answer (see ``SlowClientHandler``).
    static func uploadTooSlow(_ rate: UploadRate) -> ServerError {
        let seconds = rate.window.components.seconds
        return ServerError(.requestTimeout, code: "upload_too_slow",
                           message: "the upload arrived slower than \(rate.minimumBytesPerSecond) bytes/s over \(seconds) s; "
                               + "send it again over a faster connection", headers: [.connection: "close"])
    }

    /// 503: as many uploads as the server takes at once are being received; try again soon.
    static let tooManyUploads = ServerError(
        .serviceUnavailable, code: "too_many_uploads",
        message: "the server is receiving as many uploads as it takes at once; try again in a few seconds",
        headers: [.retryAfter: "5"]
    )

    /// 415: the request body has a type this endpoint does not take.
    static func unsupportedMediaType(_ message: String) -> ServerError {
        ServerError(.unsupportedMediaType, code: "unsupported_media_type", message: message)
    }

    /// 422: well-formed, but not something that can be done.
    static func unprocessable(_ message: String, code: String) -> ServerError {
        ServerError(.unprocessableContent, code: code, message: message)
    }

    /// 401: the server has a token and the request brought no valid credentials.
    static let unauthorized = ServerError(
        .unauthorized, code: "unauthorized",
        message: "this server needs credentials: send `Authorization: Bearer <token>`, or log in at /login",
        headers: [.wwwAuthenticate: "Bearer realm=\"attach\""]
    )

    /// 403: valid credentials whose scope does not cover this route (a sync-only token
    /// browsing or writing).
    static func insufficientScope(_ scope: AccessScope) -> ServerError {
        ServerError(.forbidden, code: "insufficient_scope",
                    message: "these credentials allow \(scope.rawValue) only; this needs the server's full token",
                    headers: [.wwwAuthenticate: "Bearer realm=\"attach\", error=\"insufficient_scope\""])
    }

    /// 405: the path exists but not with this method.
    static func methodNotAllowed(_ method: HTTPRequest.Method) -> ServerError {
        ServerError(.methodNotAllowed, code: "method_not_allowed", message: "\(method) is not allowed here")
    }

    /// 500: something failed that the client cannot fix; details go to the log only.
    static let internalError = ServerError(
        .internalServerError, code: "internal_error", message: "the server failed; the log has the details"
    )
}
