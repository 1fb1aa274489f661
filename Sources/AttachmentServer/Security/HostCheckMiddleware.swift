import HTTPTypes
import Hummingbird

/// Refuses, before routing, every request whose `Host` is not on the server's
/// ``AllowedHosts``: 421 `host_not_allowed` (400 `host_required` when it has none, 400
/// `host_repeated` when it has more than one).
///
/// The HTTP/1 codec turns the first `Host` into the request's authority and leaves any other
/// among the header fields, so a second one is seen here: which of two hosts a request meant
/// is up to whoever reads it (a proxy in front may read the other), so it is not answered.
/// ``AbsoluteFormHostHandler`` adds the authority of an absolute-form target that differs from
/// `Host` as such a second one.
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The `Host` field, as it appears among the header fields when a request repeats it.
    static let host = HTTPField.Name("Host")!

    let allowed: AllowedHosts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, !authority.isEmpty else {
            throw ServerError.badRequest("the request has no Host header", code: "host_required")
        }
        guard request.headers[Self.host] == nil else {
            throw ServerError.badRequest("the request names more than one host (two Host headers, or a Host that differs from "
                                             + "the host in its target); send one", code: "host_repeated")
        }
        guard allowed.allows(authority: authority) else {
            throw ServerError(.misdirectedRequest, code: "host_not_allowed",
                              message: "this server does not answer to the host name in the request; "
                                  + "its operator can allow it with --allowed-host or --public-url")
        }
        return try await next(request, context)
    }
}
