import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a loopback port, for tests that play a peer: it records the head
/// of every request it receives (its `Authorization` header among them) and answers each with
/// what the test's `answer` says, one request per connection (`Connection: close`), on a
/// thread of its own (never on Swift's cooperative pool).
public final class ScriptedHTTPServer: Sendable {
    /// A request's head.
    public struct Request: Sendable {
        /// `GET`, `HEAD`, …
        public let method: String
        /// The path with its query.
        public let target: String
        /// Header fields by lowercased name (a repeated field's values joined by `, `).
        public let headers: [String: String]
    }

    /// What to answer.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        /// An answer of `status` with `body`.
        public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON answer.
        public static func json(_ object: Any, status: Int = 200) -> Response {
            Response(status: status, headers: ["Content-Type": "application/json"],
                     body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        }
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let received = Mutex<[Request]>([])
    private let stopped = Atomic<Bool>(false)

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    public var requests: [Request] { received.withLock { $0 } }

    /// Starts listening on a free loopback port; `answer` is called for every request.
    public init(answer: @escaping @Sendable (Request) -> Response) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { close(fd); throw POSIXError(.EADDRINUSE) }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve(answer) }
        thread.start()
    }

    deinit { stop() }

    /// Stops listening (connections under way finish).
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ answer: @Sendable (Request) -> Response) {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            handle(connection, answer)
            close(connection)
        }
    }

    private func handle(_ connection: Int32, _ answer: @Sendable (Request) -> Response) {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: [13, 10, 13, 10]) && head.count < 64 << 10 {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            head += buffer[0..<count]
            if let end = head.firstRange(of: [13, 10, 13, 10]) { head = Array(head[..<end.upperBound]); break }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = (lines.first ?? "").split(separator: " ").map(String.init)
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let request = Request(method: parts[0], target: parts[1], headers: headers)
        received.withLock { $0.append(request) }
        let response = answer(request)
        var text = "HTTP/1.1 \(response.status) Scripted\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        var bytes = Array((text + "\r\n").utf8)
        if parts[0] != "HEAD" { bytes += response.body }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
