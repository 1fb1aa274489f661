import HTTPTypes
import Hummingbird

/// Adds the headers that keep the web UI's origin safe to every response: a strict
/// Content-Security-Policy (scripts and styles only from this origin, no inline script),
/// `X-Content-Type-Options: nosniff`, no framing, and same-origin referrers.
///
/// A response that already has a `Content-Security-Policy` (a sandboxed download) keeps it.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The policy of every page and API answer.
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
        "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'",
    ].joined(separator: "; ")

    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.frameOptions] = "DENY"
        response.headers[Self.referrerPolicy] = "same-origin"
        return response
    }
}
