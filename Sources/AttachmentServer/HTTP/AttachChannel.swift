import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix

/// Hummingbird's HTTP/1.1 child channel with this server's own handlers added to each
/// connection's pipeline:
/// - an ``AbsoluteFormHostHandler`` before the conversion to HTTP types, so that a target's
///   host that differs from `Host` is refused, not dropped;
/// - an ``EarlyAnswerHandler`` after Hummingbird's connection-state handler, just before the
///   requests are handed to the router's task (cached thumbnails answered on the event loop);
/// - a ``FileBodyHandler`` between Hummingbird's codec and NIO's response encoder, and a
///   ``FileBodyGate`` above the early answers, unless the connection is encrypted
///   (`sendsFileBodies` false): originals and blobs sent with `sendfile`, the answers after one
///   held until it has been sent.
///
/// Everything else is `base`'s: its codecs, the handlers of ``buildApplication(_:)``
/// (connection limit, slow clients) and its request loop. TLS wraps this channel as it wraps
/// any other.
struct AttachChannel<Base: ServerChildChannel>: ServerChildChannel
where Base.Value == NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart> {
    typealias Value = Base.Value

    let base: Base
    let answers: CachedThumbnailAnswers
    /// Whether connections get a ``FileBodyHandler`` (false under TLS, which needs the bytes
    /// in memory to encrypt them).
    let sendsFileBodies: Bool
    /// Where file bodies are counted.
    let metrics: ServerMetrics
    /// The open connections, told which ones an early answer authenticated.
    let connections: ConnectionTable
    /// Opens the files of file bodies, on NIO's thread pool.
    let fileIO = NonBlockingFileIO(threadPool: .singleton)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (answers, sendsFileBodies, fileIO, metrics, connections) = (self.answers, self.sendsFileBodies, self.fileIO, self.metrics, self.connections)
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(AbsoluteFormHostHandler(), position: .before(try operations.handler(type: HTTP1ToHTTPServerCodec.self)))
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            let early = EarlyAnswerHandler(answers: answers, peer: channel.remoteAddress?.ipAddress, connections: connections)
            try operations.addHandler(early, position: .after(state))
            if sendsFileBodies {
                let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
                try operations.addHandler(FileBodyHandler(fileIO: fileIO, metrics: metrics, logger: logger), position: .before(codec))
                try operations.addHandler(FileBodyGate(), position: .after(early))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
