import NIOCore
import NIOHTTPTypes

/// Enters each new connection in the server's ``ConnectionTable``, which decides whether it
/// may stay (the per-client and global limits, shedding an idle connection when full), and
/// tells the table when a request is in progress on it, so that only idle connections are
/// ever shed. A connection refused is closed at once, before it can send anything.
///
/// Sits after the HTTP codec and before ``EarlyAnswerHandler``, so it sees every request head
/// and every answer's end, early or routed.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let table: ConnectionTable
    private var entry: ConnectionTable.Entry?
    private var refused = false

    /// A handler entering this connection in `table`, shared by every connection of the server.
    init(table: ConnectionTable) { self.table = table }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection is being closed: what it managed to send is not read.
        guard !refused else { return }
        if case .head = unwrapInboundIn(data) { entry?.requestBegan() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { entry?.requestEnded() }
        context.write(data, promise: promise)
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard entry == nil, !refused else { return }
        if let admitted = table.admit(context.channel) {
            entry = admitted
        } else {
            refused = true
            context.close(promise: nil)
        }
    }

    private func leave() {
        if let entry { table.remove(entry) }
        entry = nil
    }
}
