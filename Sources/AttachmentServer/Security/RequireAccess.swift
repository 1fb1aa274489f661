import Foundation
import Hummingbird

/// Guards the routes of one group: the ``AccessPolicy`` decides, from the scope the request was
/// authenticated with (bearer or session), whether it covers ``scope``. It runs on the matched
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
    let policy: AccessPolicy
    let refusal: Refusal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch policy.access(context.identity?.scope, required: scope) {
        case .allowed:
            return try await next(request, context)
        case .insufficient(let presented):
            throw ServerError.insufficientScope(presented)
        case .needsCredentials:
            break
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
