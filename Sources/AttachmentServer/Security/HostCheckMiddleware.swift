import Hummingbird

/// Refuses, before routing, every request whose `Host` is not on the server's
/// ``AllowedHosts``: 421 `host_not_allowed` (400 `host_required` when it has none).
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let allowed: AllowedHosts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, !authority.isEmpty else {
            throw ServerError.badRequest("the request has no Host header", code: "host_required")
        }
        guard allowed.allows(authority: authority) else {
            throw ServerError(.misdirectedRequest, code: "host_not_allowed",
                              message: "this server does not answer to the host name in the request; "
                                  + "its operator can allow it with --allowed-host or --public-url")
        }
        return try await next(request, context)
    }
}
