import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Cuts off clients too slow to be worth a connection, on the event loop, before any request
/// reaches the router.
///
/// - A connection that does not deliver a complete request head within `headTimeout` of being
///   ready for one (just accepted, or its previous answer written) is closed. A client
///   trickling its head a byte at a time therefore holds the connection no longer than that,
///   however steadily it sends; the idle timeout alone only sees silence.
/// - After a `408 Request Timeout` answer (an upload that arrived below the minimum rate, see
///   ``UploadRate``), the connection is closed as soon as the answer is written, instead of
///   reading the rest of the slow body to keep the connection alive.
/// - A client that stops reading an answer (the connection stays unwritable) for `writeTimeout`
///   is closed: a slow reader holds neither the connection nor the file being sent for longer.
///
/// Sits after the HTTP codec, so it sees whole request heads; it never delays a byte.
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    /// Requests whose head arrived and whose answer is not yet fully written.
    private var openRequests = 0
    private var closeAfterAnswer = false
    private var headDeadline: Scheduled<Void>?
    private var writeDeadline: Scheduled<Void>?

    /// A handler that closes a connection whose next request head takes longer than
    /// `headTimeout`, or whose client reads nothing of an answer for `writeTimeout`.
    init(headTimeout: TimeAmount, writeTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.writeTimeout = writeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHeadDeadline(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelHeadDeadline()
        cancelWriteDeadline()
    }

    func channelActive(context: ChannelHandlerContext) {
        startHeadDeadline(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelHeadDeadline()
        cancelWriteDeadline()
        context.fireChannelInactive()
    }

    /// The client's receive window is full (unwritable) or drained again (writable).
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancelWriteDeadline()
        } else if writeDeadline == nil {
            writeDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: writeTimeout) { [self] in
                writeDeadline = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            openRequests += 1
            cancelHeadDeadline()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            if response.status == .requestTimeout { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            openRequests = max(0, openRequests - 1)
            if closeAfterAnswer {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
            } else {
                context.write(data, promise: promise)
                if openRequests == 0 { startHeadDeadline(context) }
            }
        }
    }

    private func startHeadDeadline(_ context: ChannelHandlerContext) {
        guard headDeadline == nil else { return }
        headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) { [self] in
            headDeadline = nil
            context.close(promise: nil)
        }
    }

    private func cancelHeadDeadline() {
        headDeadline?.cancel()
        headDeadline = nil
    }

    private func cancelWriteDeadline() {
        writeDeadline?.cancel()
        writeDeadline = nil
    }
}
