import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP server on 127.0.0.1 that plays the AWS endpoints a credential source talks to (STS,
/// the container and instance metadata endpoints, and an S3 bucket), answering each request
/// with what `respond` says and keeping every request it received, headers and body included.
final class FakeAWSEndpoint: Sendable {
    /// One request as received.
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(name: String, value: String)]
        var body: String

        /// The first value of header `name` (any case).
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

        /// The path, without the query.
        var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }

        /// The form fields of an `application/x-www-form-urlencoded` body.
        var form: [String: String] {
            var fields: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            return fields
        }
    }

    /// One answer.
    struct Answer: Sendable {
        var status: HTTPResponseStatus = .ok
        var body: String = ""
        var headers: [(String, String)] = []

        static func xml(_ body: String, status: HTTPResponseStatus = .ok) -> Answer {
            Answer(status: status, body: body, headers: [("Content-Type", "application/xml")])
        }

        static func json(_ body: String, status: HTTPResponseStatus = .ok) -> Answer {
            Answer(status: status, body: body, headers: [("Content-Type", "application/json")])
        }
    }

    private let respond: @Sendable (Request) -> Answer
    private let received = Mutex<[Request]>([])
    private let channel: Mutex<(any Channel)?> = Mutex(nil)

    /// The port the server listens on.
    let port: Int
    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }
    /// Every request received, in order.
    var requests: [Request] { received.withLock { $0 } }

    /// Requests received whose path starts with `prefix`.
    func requests(under prefix: String) -> [Request] { requests.filter { $0.path.hasPrefix(prefix) } }

    private init(port: Int, respond: @escaping @Sendable (Request) -> Answer) {
        self.port = port
        self.respond = respond
    }

    /// Starts a server answering with `respond`, over TLS with `tls` when given (then its
    /// ``url`` still says `http`: callers write `https://127.0.0.1:PORT`).
    static func start(tls: NIOSSLContext? = nil, _ respond: @escaping @Sendable (Request) -> Answer) async throws -> FakeAWSEndpoint {
        let box = Mutex<FakeAWSEndpoint?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler { box.withLock { $0 } })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = FakeAWSEndpoint(port: channel.localAddress?.port ?? 0, respond: respond)
        server.channel.withLock { $0 = channel }
        box.withLock { $0 = server }
        return server
    }

    /// Stops listening.
    func stop() async throws { try await channel.withLock { $0 }?.close() }

    fileprivate func answer(_ request: Request) -> Answer {
        received.withLock { $0.append(request) }
        return respond(request)
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: () -> FakeAWSEndpoint?
        var head: HTTPRequestHead?
        var body = ByteBuffer()

        init(server: @escaping () -> FakeAWSEndpoint?) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body.clear()
            case .body(var chunk):
                body.writeBuffer(&chunk)
            case .end:
                guard let head, let server = server() else { return }
                let request = Request(method: head.method.rawValue, uri: head.uri,
                                      headers: head.headers.map { ($0.name, $0.value) }, body: String(buffer: body))
                let answer = server.answer(request)
                var headers = HTTPHeaders(answer.headers)
                headers.add(name: "Content-Length", value: "\(answer.body.utf8.count)")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))), promise: nil)
                if head.method != .HEAD {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
