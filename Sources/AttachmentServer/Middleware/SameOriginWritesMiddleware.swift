import Foundation
import HTTPTypes
import Hummingbird

/// Refuses writes (POST, PUT, PATCH, DELETE) that a browser sent from another site: when the
/// request says `Sec-Fetch-Site: cross-site`, or carries an `Origin` that is neither the origin
/// the request was sent to (its scheme — as a trusted proxy forwards it — and its `Host`,
/// already checked against ``AllowedHosts``) nor the configured public URL's, it is answered
/// 403 `cross_origin` and changes nothing.
///
/// A plain HTML form on any web page can POST to `127.0.0.1:8080` without a preflight; this
/// stops such cross-site requests from changing the store even when no token is configured.
/// Clients that are not browsers (curl, scripts) send neither header and are unaffected.
struct SameOriginWritesMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// `scheme://host[:port]` of the public URL, lowercased, if one is configured.
    let publicOrigin: String?

    init(publicURL: URL?) {
        publicOrigin = publicURL.flatMap(Self.origin(of:))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.writeMethods.contains(request.method), isCrossSite(request, scheme: context.client.scheme) {
            throw ServerError(.forbidden, code: "cross_origin", message: "writes from another site are refused")
        }
        return try await next(request, context)
    }

    /// Whether a browser says this request, which reached the server over `scheme`, comes
    /// from another site.
    func isCrossSite(_ request: Request, scheme: String) -> Bool {
        if request.headers[Self.secFetchSite]?.lowercased() == "cross-site" { return true }
        guard let origin = request.headers[.origin]?.lowercased() else { return false }
        if let publicOrigin, origin == publicOrigin { return false }
        guard var host = request.head.authority?.lowercased() else { return true }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        return origin != "\(scheme)://\(host)"
    }

    /// `scheme://host[:port]` of `url`, lowercased, with the port only when it is not the scheme's default.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false)?.lowercased() else { return nil }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(shownHost)" }
        return "\(scheme)://\(shownHost):\(port)"
    }
}
