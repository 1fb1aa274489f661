import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers on the event loop the requests ``CachedThumbnailAnswers`` can answer, and hands
/// every other on to Hummingbird unchanged.
///
/// It sits after Hummingbird's connection-state handler (see ``AttachChannel``), so that
/// handler and ``SlowClientHandler`` see every request head and every answer, early or routed:
/// idle and head timeouts, slow readers and graceful shutdown treat both alike.
///
/// Answers leave in request order: a request is answered here only when no earlier request of
/// the connection is still with the router (HTTP/1.1 pipelining); otherwise it queues behind
/// them there. And only while the connection takes writes: a client that pipelines requests
/// without reading the answers gets the rest from the router, whose request loop waits for
/// each answer to be written before it reads on, so its unread answers cannot pile up here.
final class EarlyAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: CachedThumbnailAnswers
    /// Told when an answer here authenticated the connection (its bearer token was checked).
    private let connections: ConnectionTable
    /// The client's IP address.
    private let peer: String?
    /// Requests handed to the router whose answers are not yet fully written.
    private var routedRequests = 0
    /// Whether the parts still arriving belong to a request answered here (they are dropped).
    private var answeredHere = false
    private var date = HTTPDateText()

    init(answers: CachedThumbnailAnswers, peer: String?, connections: ConnectionTable) {
        self.answers = answers
        self.peer = peer
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if routedRequests == 0, context.channel.isWritable, let answer = answers.answer(to: request, from: peer, date: date.now()) {
                answeredHere = true
                if answer.authenticated { connections.markAuthenticated(context.channel) }
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            answeredHere = false
            routedRequests += 1
            context.fireChannelRead(data)
        case .body:
            if !answeredHere { context.fireChannelRead(data) }
        case .end:
            if answeredHere { answeredHere = false } else { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routedRequests = max(0, routedRequests - 1) }
        context.write(data, promise: promise)
    }
}
