import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP requests with any method, body and Content-Type, for tests against a real
/// `attach serve` child.
enum HTTP {
    /// Sends a request; returns the status and the body. Throws when no answer came.
    static func send(_ method: String, _ url: String, body: Data?, contentType: String?) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 30
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The `error.code` of a JSON error answer.
    static func errorCode(_ data: Data) -> String? {
        (object(data)?["error"] as? [String: Any])?["code"] as? String
    }

    /// The `error.message` of a JSON error answer.
    static func errorMessage(_ data: Data) -> String? {
        (object(data)?["error"] as? [String: Any])?["message"] as? String
    }

    /// Honest or not: the server sniffs the bytes.
    static func someContentType() -> String {
        ["image/jpeg", "application/octet-stream", "image/png"].randomElement()!
    }

    /// The JSON object in `data`, if it is one.
    static func object(_ data: Data) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// The lowercase hex SHA-256 of `data`.
    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
