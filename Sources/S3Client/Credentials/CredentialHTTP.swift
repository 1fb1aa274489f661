import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP requests credential providers make (STS, the container and instance metadata
/// endpoints): bounded in time and in the size of what they read, redirects never followed.
/// Everything such an endpoint answers is checked before use.
struct CredentialHTTP: Sendable {
    /// The longest body read from a credential endpoint; real answers are under 4 KiB.
    static let maxBody = 64 * 1024

    let client: HTTPClient

    /// One answer: its status and its body (at most ``maxBody`` bytes).
    struct Answer: Sendable {
        var status: Int
        var body: Data
    }

    /// Sends one request and reads its answer within `timeout`.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` naming `source` when
    ///   the endpoint cannot be reached, is too slow, or sends more than ``maxBody`` bytes.
    func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: String? = nil,
              timeout: Duration, source: String) async throws(S3ClientError) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers {
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .credentialsUnavailable(source: source, reason: "the \(name) header would hold a line break")
            }
            request.headers.add(name: name, value: value)
        }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            let bytes = try await response.body.collect(upTo: Self.maxBody)
            return Answer(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw .credentialsUnavailable(source: source, reason: "\(url) answered more than \(Self.maxBody) bytes")
        } catch {
            throw .credentialsUnavailable(source: source, reason: "cannot reach \(url): \(error)")
        }
    }
}

/// The JSON document the container and instance metadata endpoints answer:
/// `{"AccessKeyId": …, "SecretAccessKey": …, "Token": …, "Expiration": "2026-11-25T18:00:00Z"}`.
struct CredentialDocument: Decodable {
    var Code: String?
    var Message: String?
    var AccessKeyId: String?
    var SecretAccessKey: String?
    var Token: String?
    var Expiration: String?

    /// The credentials in `data`.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when `data` is not such
    ///   a document, reports a failure, lacks a key, or has an expiry that is not a date.
    static func credentials(in data: Data, source: String) throws(S3ClientError) -> S3Credentials {
        let document: CredentialDocument
        do {
            document = try JSONDecoder().decode(CredentialDocument.self, from: data)
        } catch {
            // Never quoted: a document that is almost right may hold a secret.
            throw .credentialsUnavailable(source: source, reason: "the answer (\(data.count) bytes) is not a credentials document")
        }
        if let code = document.Code, code != "Success" {
            throw .credentialsUnavailable(source: source, reason: "the endpoint reports \(code): \(document.Message ?? "")")
        }
        return try CredentialFields.credentials(
            accessKeyID: document.AccessKeyId, secretAccessKey: document.SecretAccessKey,
            sessionToken: document.Token, expiration: document.Expiration, source: source)
    }
}

/// Checks of the fields every temporary-credentials answer carries.
enum CredentialFields {
    /// Credentials from fields read off an endpoint's answer.
    /// - Throws: ``S3ClientError/credentialsUnavailable(source:reason:)`` when a key is missing
    ///   or the expiry is not an ISO 8601 date.
    static func credentials(accessKeyID: String?, secretAccessKey: String?, sessionToken: String?,
                            expiration: String?, source: String) throws(S3ClientError) -> S3Credentials {
        guard let accessKeyID, !accessKeyID.isEmpty, let secretAccessKey, !secretAccessKey.isEmpty else {
            throw .credentialsUnavailable(source: source, reason: "the answer has no AccessKeyId or SecretAccessKey")
        }
        var expiry: Date?
        if let expiration {
            guard let date = parseDate(expiration) else {
                throw .credentialsUnavailable(source: source, reason: "the expiry \(expiration.prefix(40)) is not an ISO 8601 date")
            }
            expiry = date
        }
        return S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey,
                             sessionToken: sessionToken.flatMap { $0.isEmpty ? nil : $0 }, expiration: expiry)
    }

    /// An ISO 8601 instant with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
