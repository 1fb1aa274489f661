import Hummingbird
import HummingbirdAuth

/// What the server keeps for a browser that logged in: the scope its token granted. Kept in
/// memory by the server under a random 256-bit id that travels only in the
/// `HttpOnly; SameSite=Strict` cookie; a restart ends every session.
public struct LoginSession: Codable, Sendable {
    /// What the session may do (a login needs the full token, so this is ``AccessScope/full``).
    public var scope: AccessScope
}

/// Where the server keeps login sessions and how their cookie looks.
struct LoginSessions: Sendable {
    /// The cookie's name.
    static let cookieName = "attach_session"

    /// The in-memory store of sessions (run as a service so expired ones are tidied away).
    let storage: MemoryPersistDriver<ContinuousClock>
    /// How long a session lasts after login.
    let lifetime: Duration
    /// Whether the cookie carries `Secure` (the server is reached over https).
    let secureCookie: Bool

    init(lifetime: Duration, secureCookie: Bool) {
        self.storage = MemoryPersistDriver(configuration: .init(tidyFrequency: .seconds(600)))
        self.lifetime = lifetime
        self.secureCookie = secureCookie
    }

    /// The middleware that loads a request's session from its cookie and saves a new or
    /// cleared one into the response.
    var middleware: SessionMiddleware<AppRequestContext> {
        SessionMiddleware(storage: storage, configuration: .init(
            sessionCookieParameters: .init(name: Self.cookieName, path: "/", secure: secureCookie, sameSite: .strict),
            keyPrefix: "session.", defaultSessionExpiration: lifetime))
    }

    /// The middleware that turns a loaded session into the request's ``Principal``.
    var authenticator: SessionAuthenticator<AppRequestContext, UserSessionClosureRepository<LoginSession, Principal>> {
        SessionAuthenticator(context: AppRequestContext.self) { session, _ in
            Principal(scope: session.scope, proof: .session)
        }
    }
}
