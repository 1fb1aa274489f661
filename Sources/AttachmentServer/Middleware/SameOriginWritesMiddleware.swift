import Hummingbird

/// Refuses writes (POST, PUT, PATCH, DELETE) that a browser sent from another site: when the
/// request carries an `Origin` whose host and port differ from `Host`, or
/// `Sec-Fetch-Site: cross-site`, it is answered 403 `cross_origin`.
///
/// A plain HTML form on any web page can POST to `127.0.0.1:8080` without a preflight; this
/// stops such cross-site requests from changing the store even when no token is configured.
/// Clients that are not browsers (curl, scripts) send neither header and are unaffected.
struct SameOriginWritesMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if TokenMiddleware.writeMethods.contains(request.method), Self.isCrossSite(request) {
            throw ServerError(.forbidden, code: "cross_origin", message: "writes from another site are refused")
        }
        return try await next(request, context)
    }

    /// Whether a browser says this request comes from another site.
    static func isCrossSite(_ request: Request) -> Bool {
        if request.headers[secFetchSite]?.lowercased() == "cross-site" { return true }
        guard let origin = request.headers[.origin] else { return false }
        guard let host = request.head.authority else { return true }
        let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
        return originHost?.lowercased() != host.lowercased()
    }
}

import HTTPTypes
