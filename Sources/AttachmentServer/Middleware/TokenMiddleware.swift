import Hummingbird

/// When a token is configured, every write (POST, PUT, PATCH, DELETE) and every sync request
/// (`/sync/...`, `/blobs/...`) must carry `Authorization: Bearer <token>`; other reads stay
/// open. Without a token it lets everything through.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The required token, or `nil` for none.
    let token: String?

    static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let token, Self.writeMethods.contains(request.method) || Self.isSyncPath(request.uri.path) {
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
                  Self.constantTimeEqual(Array(header.dropFirst(7).utf8), Array(token.utf8))
            else { throw ServerError.unauthorized }
        }
        return try await next(request, context)
    }

    /// Whether `path` belongs to the peer protocol.
    static func isSyncPath(_ path: String) -> Bool {
        path.hasPrefix("/sync/") || path.hasPrefix("/blobs/")
    }

    /// Compares without stopping at the first difference, so timing does not leak the token.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
