import Foundation

/// Why a request to `attach serve` failed.
public enum AttachmentClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error: its status, its stable code (`note_not_found`,
    /// `upload_too_large`, …) and its message.
    case server(status: Int, code: String, message: String)
    /// The server could not be reached, or the connection broke; the text says how.
    case transport(String)
    /// The server's answer was not what the API promises (a missing header, JSON that does not
    /// decode); the text says what.
    case unexpectedAnswer(String)
    /// A resumable upload was forgotten by the server (it expired or was cancelled); start again.
    case uploadGone
    /// The file to upload could not be opened for reading.
    case fileUnreadable(String)

    public var description: String {
        switch self {
        case .server(let status, let code, let message): "the server answered \(status) \(code): \(message)"
        case .transport(let reason): "the server could not be reached: \(reason)"
        case .unexpectedAnswer(let reason): "the server's answer was not what the API promises: \(reason)"
        case .uploadGone: "the server no longer knows this upload (it expired or was cancelled); upload the file again"
        case .fileUnreadable(let path): "\(path) could not be opened for reading"
        }
    }

    /// The error of an answer that is not a success: the code and message of the server's
    /// `{"error": {"code", "message"}}` envelope, or the status's own words when the body is not one.
    init(status: Int, reason: String, body: Data?) {
        struct Envelope: Decodable {
            struct Body: Decodable {
                var code: String
                var message: String
            }
            var error: Body
        }
        let envelope = body.flatMap { try? JSONDecoder().decode(Envelope.self, from: $0) }
        self = .server(status: status, code: envelope?.error.code ?? "http_\(status)", message: envelope?.error.message ?? reason)
    }

    /// Whether trying again (after asking where an upload stands) can get past this error: a
    /// broken connection, a server restarting, an upload another request is still writing.
    var isTransient: Bool {
        switch self {
        case .transport: true
        case .server(let status, _, _): status == 409 || status == 423 || status == 460 || status >= 500
        case .unexpectedAnswer, .uploadGone, .fileUnreadable: false
        }
    }
}
