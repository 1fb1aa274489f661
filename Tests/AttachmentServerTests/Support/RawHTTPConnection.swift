import Foundation
import NIOCore
import NIOPosix

/// A bare HTTP/1.1 connection for tests that must control exactly when bytes are sent:
/// streamed (chunked) uploads, an upload cut off or still arriving during shutdown.
struct RawHTTPConnection {
    /// A parsed response.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// Connects to `127.0.0.1:port` (from `source`, another loopback address such as
    /// `127.0.0.2`, when given) and runs `body` with a writer and a response reader; the
    /// connection is closed afterwards.
    static func with<T: Sendable>(
        port: Int, from source: String? = nil,
        _ body: (_ write: (Data) async throws -> Void, _ readResponse: () async throws -> Response?) async throws -> T
    ) async throws -> T {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var received = Data()
            return try await body({ data in
                try await outbound.write(ByteBuffer(data: data))
            }, {
                while true {
                    if let (response, length) = parse(received) {
                        // The next call reads the next answer (pipelined requests).
                        received = Data(received.dropFirst(length))
                        return response
                    }
                    let next: ByteBuffer?
                    do {
                        next = try await iterator.next()
                    } catch where isDisconnection(error) {
                        // A server that closes with unread request bytes resets the connection:
                        // for the client that is a close, after whatever arrived before it.
                        next = nil
                    }
                    guard let chunk = next else { return parse(received, closed: true)?.response }
                    received.append(contentsOf: chunk.readableBytesView)
                }
            })
        }
    }

    /// Whether `error` says the server closed or reset the connection (rather than something
    /// going wrong on the client's side).
    static func isDisconnection(_ error: any Error) -> Bool {
        if let error = error as? IOError { return [ECONNRESET, EPIPE].contains(error.errnoCode) }
        if let error = error as? ChannelError { return error == .ioOnClosedChannel || error == .alreadyClosed }
        return false
    }

    /// The first response in `data` once it is complete (by Content-Length, or by close; a 204
    /// or 304 has no body), and how many bytes of `data` it took.
    private static func parse(_ data: Data, closed: Bool = false) -> (response: Response, length: Int)? {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ")[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = data[end.upperBound...]
        let headLength = end.upperBound - data.startIndex
        if status == 204 || status == 304 { return (Response(status: status, headers: headers, body: Data()), headLength) }
        if let length = headers["content-length"].flatMap(Int.init) {
            return body.count >= length ? (Response(status: status, headers: headers, body: Data(body.prefix(length))), headLength + length) : nil
        }
        return closed ? (Response(status: status, headers: headers, body: Data(body)), data.count) : nil
    }

    /// `data` as one chunk of a chunked body.
    static func chunk(_ data: Data) -> Data {
        Data(String(data.count, radix: 16).utf8) + Data("\r\n".utf8) + data + Data("\r\n".utf8)
    }

    /// The chunk that ends a chunked body.
    static let lastChunk = Data("0\r\n\r\n".utf8)
}
