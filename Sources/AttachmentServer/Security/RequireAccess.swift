import Foundation
import Hummingbird

/// Guards the routes of one group: when the server has a token, a request must have been
/// authenticated (bearer or session) with a scope that covers ``scope``. It runs on the matched
/// route, after routing, so no spelling of a path (`//`, `/./`, `%2F`) reaches a handler around it.
struct RequireAccess: RouterMiddleware {
    typealias Context = AppRequestContext

    /// What a refused request gets.
    enum Refusal: Sendable {
        /// 401 with the JSON error (API and peer routes).
        case unauthorized
        /// 303 to the login page, which comes back here after login (web UI pages).
        case loginPage
    }

    let scope: AccessScope
    let tokens: AccessTokens
    let refusal: Refusal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard tokens.areRequired else { return try await next(request, context) }
        if let principal = context.identity {
            guard principal.scope.covers(scope) else { throw ServerError.insufficientScope(principal.scope) }
            return try await next(request, context)
        }
        switch refusal {
        case .unauthorized:
            throw ServerError.unauthorized
        case .loginPage:
            let next = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            let encoded = next.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+", "?"])) ?? "/"
            return Response(status: .seeOther, headers: [.location: "/login?next=" + encoded, .cacheControl: "no-store"])
        }
    }
}
