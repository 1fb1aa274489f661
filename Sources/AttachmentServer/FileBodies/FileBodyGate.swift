import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Holds everything a connection writes after the head of a file-body answer (``FileBody``)
/// until ``FileBodyHandler`` has sent the file, so that the rest of the pipeline sees that
/// answer end when its last byte has left, as for any other answer.
///
/// It sits at the top of the pipeline, above ``EarlyAnswerHandler``, Hummingbird's
/// connection-state handler and ``SlowClientHandler`` (see ``AttachChannel``). The file is sent
/// below Hummingbird's codec, after the answer's end has been written above it; without the
/// gate, the handlers above would take that end for the answer being written: the idle timeout
/// and the next request head's deadline would start while a slow client is still downloading,
/// an early answer could overtake the file, and the half-close of a `Connection: close` answer
/// would shut the socket before the file went out. Held here in order: the writes (the
/// answer's end, answers to pipelined requests), flushes and output half-closes. A full close
/// is never held: it is how a connection is cut.
final class FileBodyGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What ``FileBodyHandler`` sends up the pipeline when a file body has been sent, or has
    /// failed (the connection is then closing).
    struct Sent: Sendable {}

    private enum Held {
        case write(NIOAny, EventLoopPromise<Void>?)
        case flush
        case closeOutput(EventLoopPromise<Void>?)
    }

    /// While a file body is on its way: what came after its head, in order.
    private var held: [Held]?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if held != nil {
            held?.append(.write(data, promise))
            return
        }
        if case .head(let response) = unwrapOutboundIn(data), response.headerFields[FileBody.field] != nil {
            held = []
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        if held != nil { held?.append(.flush) }
        // What was written before the hold may go now.
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if held != nil, mode == .output {
            held?.append(.closeOutput(promise))
            return
        }
        context.close(mode: mode, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is Sent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        let items = held ?? []
        held = nil
        // One of them may be the head of the next file body, which holds the rest again.
        for item in items {
            switch item {
            case .write(let data, let promise): write(context: context, data: data, promise: promise)
            case .flush: flush(context: context)
            case .closeOutput(let promise): close(context: context, mode: .output, promise: promise)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failHeld(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failHeld(ChannelError.ioOnClosedChannel)
    }

    private func failHeld(_ error: any Error) {
        let items = held ?? []
        held = nil
        for item in items {
            switch item {
            case .write(_, let promise), .closeOutput(let promise): promise?.fail(error)
            case .flush: break
            }
        }
    }
}
