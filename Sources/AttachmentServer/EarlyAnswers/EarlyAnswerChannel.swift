import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel with an ``EarlyAnswerHandler`` added after its
/// connection-state handler, just before the requests are handed to the router's task.
///
/// Everything else is `base`'s: its codecs, the handlers of ``buildApplication(_:)``
/// (connection limit, slow clients) and its request loop. TLS wraps this channel as it wraps
/// any other.
struct EarlyAnswerChannel<Base: ServerChildChannel>: ServerChildChannel
where Base.Value == NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart> {
    typealias Value = Base.Value

    let base: Base
    let answers: CachedThumbnailAnswers

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let answers = self.answers
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(EarlyAnswerHandler(answers: answers, peer: channel.remoteAddress?.ipAddress), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
