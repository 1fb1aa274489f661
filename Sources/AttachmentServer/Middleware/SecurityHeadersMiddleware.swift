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

    /// The fields, made (and their values checked) once rather than per response.
    static let policyField = HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy)
    static let fixedFields = [
        HTTPField(name: .xContentTypeOptions, value: "nosniff"), HTTPField(name: frameOptions, value: "DENY"),
        HTTPField(name: referrerPolicy, value: "same-origin"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        Self.apply(to: &response.headers)
        return response
    }

    /// Adds the policy (unless `headers` has one) and the fixed fields, replacing any of
    /// theirs: what every answer carries, whether a route or ``CachedThumbnailAnswers`` made it.
    static func apply(to headers: inout HTTPFields) {
        if !headers.contains(.contentSecurityPolicy) { headers.append(policyField) }
        for field in fixedFields {
            // Ours replace any a route set; the usual case, none, is an append.
            if headers.contains(field.name) { headers[fields: field.name] = [field] } else { headers.append(field) }
        }
    }
}
