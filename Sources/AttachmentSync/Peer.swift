import Foundation

/// A peer this store syncs with: where it is and the token its sync endpoints want.
public struct Peer: Sendable, Hashable, CustomStringConvertible {
    /// The peer's base URL, for example `http://127.0.0.1:8081`.
    public var url: URL
    /// The bearer token, when the peer requires one.
    public var token: String?

    /// A peer at `url`.
    public init(url: URL, token: String? = nil) {
        self.url = url
        self.token = token
    }

    /// Parses `http://host:port` (a trailing slash is ignored).
    /// - Throws: ``SyncError/badResponse(peer:reason:)`` for anything that is not an http(s) URL.
    public init(parsing text: String, token: String? = nil) throws {
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw SyncError.badResponse(peer: text, reason: "a peer is an http:// or https:// URL")
        }
        self.init(url: url, token: token)
    }

    public var description: String { url.absoluteString }
}
