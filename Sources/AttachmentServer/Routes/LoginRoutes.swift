import Foundation
import Hummingbird
import Logging

/// `GET /login` (the form), `POST /login` (the token for a session cookie) and `POST /logout`.
/// These routes need no credentials: they are how a browser gets them. Tries at `POST /login`
/// are limited per client address (``LoginAttempts``): after a few wrong tokens each try waits
/// longer, and one made too soon is answered 429 `too_many_login_attempts` with `Retry-After`,
/// its token unchecked. Refusals are logged at most once a minute, with how many there were.
struct LoginRoutes {
    let dependencies: ServerDependencies

    /// The largest login form accepted; a token is far shorter.
    static let maxFormBytes = 8 << 10

    func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("login", use: form)
        router.post("login", use: login)
        router.post("logout", use: logout)
    }

    @Sendable func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.safeNext(request.uri.queryParameters.get("next"))
        guard dependencies.tokens.areRequired, context.identity == nil else { return Self.redirect(to: next) }
        return WebUIRoutes.html(LoginPage(next: next, failed: false, assets: dependencies.assets).html)
    }

    /// The login form's two fields. Other fields, and repeats of these (the first counts), are
    /// ignored, as a browser's form may carry more than we ask for.
    struct Form {
        var token: String?
        var next: String?

        /// Reads an `application/x-www-form-urlencoded` body; `nil` when it is not one.
        init?(urlEncoded body: String) {
            var components = URLComponents()
            components.percentEncodedQuery = body.replacingOccurrences(of: "+", with: "%20")
            guard !body.isEmpty else { return }
            guard let items = components.queryItems else { return nil }
            token = items.first { $0.name == "token" }?.value
            next = items.first { $0.name == "next" }?.value
        }
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: Self.maxFormBytes)
        guard let form = Form(urlEncoded: String(buffer: body)) else {
            throw ServerError.badRequest("the login form must be application/x-www-form-urlencoded with a token field", code: "bad_login_form")
        }
        let next = Self.safeNext(form.next)
        guard dependencies.tokens.areRequired else { return Self.redirect(to: next) }
        let attempts = dependencies.loginAttempts
        let address = context.client.address ?? "unknown"
        if let wait = attempts.wait(for: address) {
            Self.log("login refused: too many attempts", address: address, throttle: attempts.tooSoonLog, logger: context.logger)
            throw ServerError.tooManyLoginAttempts(retryAfter: wait)
        }
        guard let token = form.token, dependencies.tokens.scope(of: token) == .full else {
            attempts.failed(address)
            Self.log("login refused: wrong token", address: address, throttle: attempts.wrongTokenLog, logger: context.logger)
            return WebUIRoutes.html(LoginPage(next: next, failed: true, assets: dependencies.assets).html, status: .unauthorized)
        }
        attempts.succeeded(address)
        context.sessions.createSession(LoginSession(scope: .full), expiresIn: dependencies.sessions.lifetime)
        return Self.redirect(to: next)
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        context.sessions.clearSession()
        return Self.redirect(to: "/login")
    }

    /// Logs `message` about `address` when `throttle` lets a line through, with how many
    /// refusals it stands for.
    private static func log(_ message: Logger.Message, address: String, throttle: LogThrottle, logger: Logger) {
        guard let events = throttle.record() else { return }
        logger.notice(message, metadata: [
            "client.address": "\(address)", "events": "\(events)", "events.interval_s": "\(LoginAttempts.logInterval.components.seconds)",
        ])
    }

    /// 303 to `path`, never cached.
    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
    }

    /// `next` when it is a path on this server (`/…`, not `//host` or `/\host`, no control
    /// characters), else `/`: a login link cannot send anyone to another site.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"), next.utf8.count <= 2048,
              next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f && $0 != "\\" })
        else { return "/" }
        return next
    }
}

extension ServerError {
    /// 429 `too_many_login_attempts`: the client's address must wait `retryAfter` before its
    /// next try at `/login` (in `Retry-After`, whole seconds rounded up).
    static func tooManyLoginAttempts(retryAfter: Duration) -> ServerError {
        let (seconds, attoseconds) = retryAfter.components
        let wait = max(1, seconds + (attoseconds > 0 ? 1 : 0))
        return ServerError(.tooManyRequests, code: "too_many_login_attempts",
                           message: "too many wrong tokens from this address; try again in \(wait) s",
                           headers: [.retryAfter: String(wait)])
    }
}
