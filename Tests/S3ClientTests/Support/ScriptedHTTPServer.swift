import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A tiny HTTP server on 127.0.0.1 that answers requests with scripted statuses, in order
/// (the last one repeats), and counts what it received: a stand-in for an S3 server that
/// fails on purpose.
final class ScriptedHTTPServer: Sendable {
    /// One scripted answer.
    struct Answer: Sendable {
        var status: HTTPResponseStatus
        var body: String = ""
        var headers: [(String, String)] = []
    }

    private let answers: [Answer]
    private let received = Mutex<[String]>([])
    private let channel: any Channel

    /// The port the server listens on.
    var port: Int { channel.localAddress?.port ?? 0 }
    /// `METHOD URI` of each request received, in order.
    var requests: [String] { received.withLock { $0 } }

    private init(answers: [Answer], channel: any Channel) {
        self.answers = answers
        self.channel = channel
    }

    /// Starts a server that gives `answers` in order.
    static func start(answers: [Answer]) async throws -> ScriptedHTTPServer {
        let box = Mutex<ScriptedHTTPServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler { box.withLock { $0 } })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedHTTPServer(answers: answers, channel: channel)
        box.withLock { $0 = server }
        return server
    }

    /// Stops listening.
    func stop() async throws { try await channel.close() }

    fileprivate func answer(for head: HTTPRequestHead) -> Answer {
        received.withLock { received in
            received.append("\(head.method) \(head.uri)")
            return answers[min(received.count, answers.count) - 1]
        }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: () -> ScriptedHTTPServer?
        var head: HTTPRequestHead?

        init(server: @escaping () -> ScriptedHTTPServer?) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end:
                guard let head, let server = server() else { return }
                let answer = server.answer(for: head)
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
