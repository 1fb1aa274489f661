import Foundation
import HTTPTypes
import Hummingbird

/// Decides who sent each request (``AppRequestContext/client``) and removes the forwarded
/// headers, so nothing after it can read a header a client wrote.
///
/// `X-Forwarded-For` and `X-Forwarded-Proto` are believed only on a connection from one of the
/// ``TrustedProxies``. The client is then the rightmost address in `X-Forwarded-For` that is not
/// itself a trusted proxy (entries further left were written by whoever the proxy talked to,
/// and can be anything); an entry that is not an address stops the walk, and the last trusted
/// hop counts as the client. From any other address the headers are ignored.
struct ForwardedHeadersMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwarded = HTTPField.Name("Forwarded")!

    let trusted: TrustedProxies
    let tls: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.client = client(of: request, connectedFrom: context.remoteAddress?.ipAddress)
        let names = [Self.forwardedFor, Self.forwardedProto, Self.forwardedHost, Self.forwarded]
        guard names.contains(where: { request.headers[$0] != nil }) else { return try await next(request, context) }
        var head = request.head
        for name in names { head.headerFields[name] = nil }
        return try await next(Request(head: head, body: request.body), context)
    }

    /// The client of `request`, which arrived on a connection from `peer`.
    func client(of request: Request, connectedFrom peer: String?) -> RequestClient {
        let direct = RequestClient.direct(address: peer, tls: tls)
        guard let peer, trusted.contains(peer) else { return direct }
        var client = direct
        client.proxy = peer
        let hops = request.headers[values: Self.forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard TrustedProxies.bytes(of: hop) != nil else { break }
            client.address = hop
            guard trusted.contains(hop) else { break }
        }
        if let proto = request.headers[Self.forwardedProto]?.split(separator: ",").first?
            .trimmingCharacters(in: .whitespaces).lowercased(), ["http", "https"].contains(proto) {
            client.scheme = proto
        }
        return client
    }
}
