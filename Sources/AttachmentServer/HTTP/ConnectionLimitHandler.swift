import NIOCore

/// Closes a new connection at once when the server already holds ``BoundedCounter/limit``
/// of them, so a flood of idle connections cannot use up the process's descriptors.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let count: BoundedCounter
    private var admitted = false

    /// A handler counting this connection in `count`, shared by every connection of the server.
    init(count: BoundedCounter) { self.count = count }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted {
            admitted = false
            count.leave()
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if admitted {
            admitted = false
            count.leave()
        }
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        if count.enter() {
            admitted = true
        } else {
            context.close(promise: nil)
        }
    }
}
