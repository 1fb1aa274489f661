import HTTPTypes

/// The server's one decision about whether a request may be answered: which hosts it answers
/// to and what each credential may do. The router's middleware (``HostCheckMiddleware``,
/// ``RequireAccess``) and the cached-thumbnail fast path (``CachedThumbnailAnswers``) both ask
/// it, so there is one way in, decided in one place.
struct AccessPolicy: Sendable {
    /// What the request's `Host` decides.
    enum HostVerdict: Equatable {
        /// Answered.
        case allowed
        /// The request names no host: 400 `host_required`.
        case missing
        /// It names more than one (two `Host` fields, or a target whose host differs): 400
        /// `host_repeated`, since which one it meant is up to whoever reads it.
        case repeated
        /// It names a host this server does not answer to: 421 `host_not_allowed`.
        case notAllowed
    }

    /// What the request's credentials decide for a route that needs a scope.
    enum Verdict: Equatable {
        /// Allowed; `authenticated` says whether credentials were checked (a server without a
        /// token checks none).
        case allowed(authenticated: Bool)
        /// The server requires credentials and the request has none it accepts.
        case needsCredentials
        /// The credentials are valid, but their scope does not cover the route.
        case insufficient(AccessScope)
    }

    /// The hosts the server answers to.
    let hosts: AllowedHosts
    /// The tokens it accepts.
    let tokens: AccessTokens

    /// The `Host` field, as it appears among the header fields when a request repeats it (the
    /// HTTP/1 codec makes the first one the request's authority).
    static let repeatedHost = HTTPField.Name("Host")!

    /// The verdict on a request whose authority is `authority` and whose header fields are
    /// `fields`.
    func host(authority: String?, fields: HTTPFields) -> HostVerdict {
        guard let authority, !authority.isEmpty else { return .missing }
        guard fields[Self.repeatedHost] == nil else { return .repeated }
        return hosts.allows(authority: authority) ? .allowed : .notAllowed
    }

    /// The scope a bearer token grants, or `nil` when it is no token of this server (compared
    /// in constant time).
    func scope(ofBearer token: String) -> AccessScope? {
        tokens.scope(of: token)
    }

    /// The verdict for a route that needs `required`, on a request authenticated with
    /// `presented` (`nil`: no credentials this server accepts).
    func access(_ presented: AccessScope?, required: AccessScope) -> Verdict {
        guard tokens.areRequired else { return .allowed(authenticated: false) }
        guard let presented else { return .needsCredentials }
        return presented.covers(required) ? .allowed(authenticated: true) : .insufficient(presented)
    }
}
