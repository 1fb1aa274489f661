import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Sends the file bodies routes name (``FileBody``) from the page cache to the socket with
/// `sendfile`, so the bytes of an original or a blob never pass through this process.
///
/// It sits between Hummingbird's HTTP/1 codec and NIO's response encoder (added by
/// ``AttachChannel``, never under TLS), where a body may be a `FileRegion`. For a head that
/// carries ``FileBody/field`` it takes the field out, passes the head on, opens the file on
/// NIO's thread pool (never on the event loop) and then writes the range as the body. When the
/// range has been sent, or has failed, it tells ``FileBodyGate`` at the top of the pipeline,
/// which holds everything written after that head until then, so nothing else reaches this
/// handler in between. The file is closed when the kernel has sent the range or the connection
/// failed. When the file cannot be opened, or is shorter than its head promised, the
/// connection is closed: the head is out, and a client must not take a short body for a whole
/// one. The bytes sent this way are counted in `attach_file_body_bytes_total`.
final class FileBodyHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Why a file body could not be sent.
    enum Failure: Error, CustomStringConvertible {
        /// The file is shorter than the range its answer's head announced.
        case fileShorter(path: String, size: Int, needed: Int64)
        /// The head's field did not name a file body (a route's mistake).
        case unreadableField(String)

        var description: String {
            switch self {
            case .fileShorter(let path, let size, let needed):
                "\(path) has \(size) bytes, fewer than the \(needed) its answer announced"
            case .unreadableField(let value):
                "the file body field '\(value)' names no file range"
            }
        }
    }

    private let fileIO: NonBlockingFileIO
    private let metrics: ServerMetrics
    private let logger: Logger
    private var removed = false

    /// A handler that opens files with `fileIO`, counts the bytes it sends in `metrics` and logs
    /// failures to `logger`.
    init(fileIO: NonBlockingFileIO, metrics: ServerMetrics, logger: Logger) {
        self.fileIO = fileIO
        self.metrics = metrics
        self.logger = logger
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), let value = head.headers.first(name: FileBody.field.rawName) else {
            context.write(data, promise: promise)
            return
        }
        head.headers.remove(name: FileBody.field.rawName)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
        guard let body = FileBody(fieldValue: value) else {
            failed(Failure.unreadableField(value), context: context)
            return
        }
        fileIO.openFile(_deprecatedPath: body.path, eventLoop: context.eventLoop).assumeIsolated().whenComplete { result in
            self.opened(result, body: body, context: context)
        }
    }

    private func opened(_ result: Result<(NIOFileHandle, FileRegion), any Error>, body: FileBody, context: ChannelHandlerContext) {
        switch result {
        case .success(let (handle, whole)):
            guard !removed, Int64(whole.endIndex) > body.range.upperBound else {
                try? handle.close()
                failed(removed ? ChannelError.ioOnClosedChannel
                              : Failure.fileShorter(path: body.path, size: whole.endIndex, needed: body.range.upperBound + 1),
                       context: context)
                return
            }
            let region = FileRegion(fileHandle: handle, readerIndex: Int(body.range.lowerBound), endIndex: Int(body.range.upperBound) + 1)
            let sent = context.eventLoop.makePromise(of: Void.self)
            let (metrics, count) = (self.metrics, Int64(region.readableBytes))
            sent.futureResult.assumeIsolated().whenComplete { result in
                try? handle.close()
                if case .success = result { metrics.count("attach_file_body_bytes_total", by: count) }
                if !self.removed { context.fireUserInboundEventTriggered(FileBodyGate.Sent()) }
            }
            context.writeAndFlush(wrapOutboundOut(.body(.fileRegion(region))), promise: sent)
        case .failure(let error):
            failed(error, context: context)
        }
    }

    /// Closes the connection, and lets the gate go (its writes then fail on the closed channel).
    private func failed(_ error: any Error, context: ChannelHandlerContext) {
        guard !removed else { return }
        logger.error("could not send a file body; closing the connection", metadata: ["error": "\(error)"])
        context.close(promise: nil)
        context.fireUserInboundEventTriggered(FileBodyGate.Sent())
    }
}
