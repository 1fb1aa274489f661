import Foundation
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The per-request context of every route: Hummingbird's core storage, who the request was
/// authenticated as, its login session, and JSON coders that read and write dates as ISO 8601.
public struct AppRequestContext: RequestContext, AuthRequestContext, SessionRequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own per-request storage (logger, route, parameters).
    public var coreContext: CoreRequestContextStorage
    /// Who the request proved to be (bearer token or session), set by the authenticators;
    /// `nil` for an anonymous request.
    public var identity: Principal?
    /// The login session loaded from the request's cookie, if any.
    public let sessions: SessionContext<LoginSession>
    /// The address of the connection the request came on (a proxy's, behind one).
    public let remoteAddress: SocketAddress?
    /// Who sent the request, forwarded headers from a trusted proxy believed; set by
    /// ``ForwardedHeadersMiddleware`` before anything else looks at the request.
    package var client: RequestClient
    /// The connection the request came on (asked whether it can send a ``FileBody``).
    package let channel: any Channel

    /// Creates the context for one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.identity = nil
        self.sessions = SessionContext()
        self.remoteAddress = source.channel.remoteAddress
        self.channel = source.channel
        self.client = .direct(address: source.channel.remoteAddress?.ipAddress, tls: false)
    }

    /// JSON request bodies (note edits) are small; anything bigger than 1 MiB is refused.
    public var maxUploadSize: Int { 1 << 20 }

    /// Decodes JSON with ISO 8601 dates.
    public var requestDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Encodes JSON with ISO 8601 dates and sorted keys.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
