import NIOCore
import NIOHTTP1

/// Keeps the host of an absolute-form request target (`GET http://host/path HTTP/1.1`), which
/// the HTTP/1 to HTTP types conversion drops, from disagreeing silently with `Host`: when the
/// target names a host other than the `Host` header's, that host is added as a second `Host`
/// field, which ``HostCheckMiddleware`` refuses (400 `host_repeated`) and early answers never
/// answer. RFC 9112 makes the target's host the one that counts, while the routing and the host
/// check read `Host`; a request naming two is refused instead of guessed at.
///
/// Sits between NIO's HTTP/1 decoder and the conversion to HTTP types (see ``AttachChannel``).
final class AbsoluteFormHostHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), let target = Self.authority(ofAbsoluteForm: head.uri) else {
            context.fireChannelRead(data)
            return
        }
        let hosts = head.headers["Host"]
        if let first = hosts.first, first.lowercased() != target.lowercased() {
            head.headers.add(name: "Host", value: target)
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The authority of an absolute-form target (`scheme://authority/...`, without any
    /// `userinfo@`); `nil` for the origin form (`/path`), `*` and anything else.
    static func authority(ofAbsoluteForm target: String) -> String? {
        guard !target.hasPrefix("/"), let schemeEnd = target.range(of: "://") else { return nil }
        let rest = target[schemeEnd.upperBound...]
        var authority = rest.prefix { !["/", "?", "#"].contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(authority)
    }
}
