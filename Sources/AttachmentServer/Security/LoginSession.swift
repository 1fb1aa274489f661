import AttachmentStore
import Hummingbird
import HummingbirdAuth
import Logging

/// What the server keeps for a browser that logged in: the scope its token granted. Kept in
/// the store's catalog (``CatalogPersistDriver``) under a random 256-bit id that travels only in
/// the `HttpOnly; SameSite=Strict` cookie, so every server of the store accepts it and a restart
/// keeps it.
public struct LoginSession: Codable, Sendable {
    /// What the session may do (a login needs the full token, so this is ``AccessScope/full``).
    public var scope: AccessScope
}

/// Where the server keeps login sessions and how their cookie looks.
struct LoginSessions: Sendable {
    /// The cookie's name.
    static let cookieName = "attach_session"

    /// Where sessions are kept: the catalog (run as a service so expired ones are tidied away).
    let storage: CatalogPersistDriver
    /// How long a session lasts after login.
    let lifetime: Duration
    /// Whether the cookie carries `Secure` (the server is reached over https).
    let secureCookie: Bool

    init(store: AttachmentStore, lifetime: Duration, logger: Logger, secureCookie: Bool) {
        self.storage = CatalogPersistDriver(store: store, logger: logger)
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
