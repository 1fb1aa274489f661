import Hummingbird

/// Marks a request's connection as authenticated in the ``ConnectionTable`` once the request
/// passed the credentials check (a bearer token or a login session of this server), so that
/// the connection is shed only after every idle one that never did. Runs after the
/// authenticators; on a server without a token nothing is marked (every connection is alike).
struct AuthenticatedConnectionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let connections: ConnectionTable
    let tokens: AccessTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if tokens.areRequired, context.identity != nil { connections.markAuthenticated(context.channel) }
        return try await next(request, context)
    }
}
