import HTTPTypes
import Hummingbird

/// Refuses, before routing, every request whose `Host` the ``AccessPolicy`` does not answer:
/// 421 `host_not_allowed` (400 `host_required` when it has none, 400 `host_repeated` when it has
/// more than one).
///
/// The HTTP/1 codec turns the first `Host` into the request's authority and leaves any other
/// among the header fields, so a second one is seen here: which of two hosts a request meant
/// is up to whoever reads it (a proxy in front may read the other), so it is not answered.
/// ``AbsoluteFormHostHandler`` adds the authority of an absolute-form target that differs from
/// `Host` as such a second one.
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let policy: AccessPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch policy.host(authority: request.head.authority, fields: request.headers) {
        case .allowed:
            return try await next(request, context)
        case .missing:
            throw ServerError.badRequest("the request has no Host header", code: "host_required")
        case .repeated:
            throw ServerError.badRequest("the request names more than one host (two Host headers, or a Host that differs from "
                                             + "the host in its target); send one", code: "host_repeated")
        case .notAllowed:
            throw ServerError(.misdirectedRequest, code: "host_not_allowed",
                              message: "this server does not answer to the host name in the request; "
                                  + "its operator can allow it with --allowed-host or --public-url")
        }
    }
}
