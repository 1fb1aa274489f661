import HummingbirdAuth
import Hummingbird

/// Authenticates `Authorization: Bearer TOKEN` against the server's tokens. A wrong or missing
/// token authenticates nothing; the route's ``RequireAccess`` then refuses the request.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppRequestContext

    let policy: AccessPolicy

    func authenticate(request: Request, context: Context) async throws -> Principal? {
        guard policy.tokens.areRequired, let bearer = request.headers.bearer, let scope = policy.scope(ofBearer: bearer.token) else { return nil }
        return Principal(scope: scope, proof: .bearer)
    }
}
