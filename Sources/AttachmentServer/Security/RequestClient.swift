/// Who sent a request, as far as the server can tell: the connection's own address and scheme,
/// or — when the connection comes from a ``TrustedProxies`` address — what that proxy says in
/// `X-Forwarded-For` and `X-Forwarded-Proto`. Set by ``ForwardedHeadersMiddleware``.
package struct RequestClient: Sendable, Equatable {
    /// The client's IP address; `nil` when the connection has none (a Unix socket, a test).
    package var address: String?
    /// `http` or `https`: how the client reached us (or the proxy).
    package var scheme: String
    /// The trusted proxy the request came through, when it did.
    package var proxy: String?

    /// A client connected straight to the server.
    package static func direct(address: String?, tls: Bool) -> RequestClient {
        RequestClient(address: address, scheme: tls ? "https" : "http", proxy: nil)
    }
}
