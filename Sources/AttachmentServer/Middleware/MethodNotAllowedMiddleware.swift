import Hummingbird
import Synchronization

/// Answers a request for a path the server has, with a method it does not take there, with
/// 405 and `Allow` (the methods it does take), as HTTP asks; a path it does not have stays 404.
///
/// The router answers both with 404, so this middleware looks at the router's own 404
/// (`HTTPError`, never one of our handlers' ``ServerError`` answers) and checks the path
/// against the ``RouteTable``, which `buildRouter` fills once every route is registered.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let table: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(for: request.uri.path)
            // No route has the path, or one takes this method and the router still did not match
            // (another spelling of the path, such as `//sync/changes`): that stays a 404.
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            let list = allowed.joined(separator: ", ")
            throw ServerError(.methodNotAllowed, code: "method_not_allowed",
                              message: "\(request.method.rawValue) is not taken here; this address takes \(list)",
                              headers: [.allow: list])
        }
    }
}

/// The server's routes as path patterns and methods, for ``MethodNotAllowedMiddleware``.
final class RouteTable: Sendable {
    private struct Route {
        var segments: [Substring]
        var method: String
    }

    private let routes = Mutex<[Route]>([])

    /// Records the router's routes (`{name}` and `*` match one segment, `**` the rest).
    func record(_ descriptions: [(path: String, method: String)]) {
        routes.withLock { routes in
            routes = descriptions.map { Route(segments: $0.path.split(separator: "/"), method: $0.method) }
        }
    }

    /// The methods some route takes at `path`, sorted; empty when no route has the path. `HEAD`
    /// is among them wherever `GET` is (the router answers it from the `GET` route).
    func methods(for path: String) -> [String] {
        let parts = path.split(separator: "/")
        var found = routes.withLock { routes in
            Set(routes.filter { Self.matches($0.segments, parts) }.map(\.method))
        }
        if found.contains("GET") { found.insert("HEAD") }
        return found.sorted()
    }

    private static func matches(_ pattern: [Substring], _ parts: [Substring]) -> Bool {
        for (index, segment) in pattern.enumerated() {
            if segment == "**" { return true }
            guard index < parts.count else { return false }
            if segment == "*" || (segment.hasPrefix("{") && segment.hasSuffix("}")) || segment.hasPrefix(":") { continue }
            if segment != parts[index] { return false }
        }
        return pattern.count == parts.count
    }
}
