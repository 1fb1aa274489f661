/// The login page: one password field for the server's token, no script. Posting it to
/// `/login` gives the browser an `HttpOnly` session cookie; the token itself is never kept by
/// the page.
struct LoginPage {
    /// Where to go after a successful login (already checked to be a path on this server).
    let next: String
    /// Whether the last attempt used a wrong token.
    let failed: Bool
    let assets: StaticAssets

    /// The static files the page itself uses, served without credentials.
    static let assetNames: Set<String> = ["app.css", "icon.svg"]

    var html: String {
        let error = failed ? #"<p class="login-error" role="alert">That token is not right. Try again.</p>"# : ""
        return HTML.page(title: "Log in", assets: assets, bodyClass: "login-page", script: false, body: """
            <main class="login">
              <h1>AttachmentStore</h1>
              <form method="post" action="/login">
                <input type="hidden" name="next" value="\(HTML.escape(next))">
                <label for="token">Access token</label>
                <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
                \(error)
                <button type="submit" class="primary">Log in</button>
              </form>
            </main>
            """)
    }
}
