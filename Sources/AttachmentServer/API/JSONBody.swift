import Foundation
import Hummingbird

/// A JSON object request body: its own fields may be left out but are never `null`; fields it
/// does not name are ignored.
protocol JSONObjectBody: Decodable {
    /// The fields the body names (its `CodingKeys`, listed).
    associatedtype CodingKeys: CodingKey & CaseIterable
}

/// Reads small JSON request bodies (note edits).
enum JSONBody {
    /// Decodes `type` from the request body; `nil` for an empty body when `allowEmpty`.
    /// - Throws: 415 when the body is not `application/json`, 413 past the context's limit,
    ///   400 `invalid_json` when it does not decode or one of its fields is `null`.
    static func decode<T: JSONObjectBody>(
        _ type: T.Type, from request: Request, context: AppRequestContext, allowEmpty: Bool
    ) async throws -> T? {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw ServerError(.contentTooLarge, code: "body_too_large", message: "a JSON body may be at most \(context.maxUploadSize) bytes")
        }
        if buffer.readableBytes == 0 {
            if allowEmpty { return nil }
            throw ServerError.badRequest("the request has no body; send a JSON object", code: "invalid_json")
        }
        let contentType = request.headers[.contentType].map { HeaderParameters($0).value }
        guard contentType == "application/json" else {
            throw ServerError.unsupportedMediaType("send the body as application/json")
        }
        let data = Data(buffer: buffer)
        // Swift decodes `null` as a missing optional; the document allows none of the body's own
        // fields to be null, so a client that sends one is told rather than silently ignored.
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let field = T.CodingKeys.allCases.map(\.stringValue).first(where: { object[$0] is NSNull }) {
            throw ServerError.badRequest("\(field) may not be null: leave it out to keep the value", code: "invalid_json")
        }
        do {
            return try context.requestDecoder.decode(T.self, from: data)
        } catch {
            throw ServerError.badRequest("the body is not the JSON object this endpoint takes: \(error)", code: "invalid_json")
        }
    }
}
