import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// One S3 operation before it is signed: what to send, and whether sending it twice is harmless.
struct S3Request: Sendable {
    /// The body of a request.
    enum Payload: Sendable {
        /// No body (GET, HEAD, DELETE).
        case empty
        /// A body in memory, signed with its SHA-256.
        case bytes(ByteBuffer)
        /// A body streamed without signing its bytes (`UNSIGNED-PAYLOAD`); `makeBody` is
        /// called again for each attempt.
        case stream(makeBody: @Sendable () -> HTTPClientRequest.Body)
    }

    var method: HTTPMethod
    /// The object key, or nil for a request on the bucket itself.
    var key: String?
    var query: [(name: String, value: String)] = []
    var headers: [(name: String, value: String)] = []
    var payload: Payload = .empty
    /// Whether a failed attempt may be sent again (every request but POST).
    var idempotent: Bool

    init(_ method: HTTPMethod, key: String?, query: [(name: String, value: String)] = [],
         headers: [(name: String, value: String)] = [], payload: Payload = .empty) {
        self.method = method
        self.key = key
        self.query = query
        self.headers = headers
        self.payload = payload
        self.idempotent = method != .POST
    }
}
