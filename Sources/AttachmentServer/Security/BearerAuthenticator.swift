import HummingbirdAuth
import Hummingbird

/// Authenticates `Authorization: Bearer TOKEN` against the server's tokens. A wrong or missing
/// token authenticates nothing; the route's ``RequireAccess`` then refuses the request.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppRequestContext

    let tokens: AccessTokens

    func authenticate(request: Request, context: Context) async throws -> Principal? {
        guard tokens.areRequired, let bearer = request.headers.bearer, let scope = tokens.scope(of: bearer.token) else { return nil }
        return Principal(scope: scope, proof: .bearer)
    }
}
