import AttachmentStore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// The IETF "Resumable Uploads for HTTP" draft, as `URLSession` speaks it on iOS 17 and macOS 14
/// (draft-ietf-httpbis-resumable-upload-01, interop version 3: `Upload-Incomplete`) and on later
/// systems (interop versions 5 and 6: `Upload-Complete`), read and written in one place.
///
/// A client sends a file the usual way (`POST /api/notes/{id}/attachments?filename=…`, the
/// bytes as the body) adding `Upload-Draft-Interop-Version` and `Upload-Incomplete: ?0` (or
/// `Upload-Complete: ?1`). The server answers at once with `104 Upload Resumption Supported`
/// naming the upload's address (`Location: /api/uploads/{id}`), stores the bytes as a resumable
/// upload (the same one tus writes), and gives the usual answer when the last byte is in. When
/// the connection dies, the client asks `HEAD` at that address for `Upload-Offset` and sends
/// the rest with `PATCH`; `DELETE` cancels. Limits, expiry and the lock handover are the tus
/// upload's.
enum ResumableUploadDraft {
    /// The interop versions spoken.
    static let versions: Set<Int> = [3, 5, 6]

    static let interopVersion = HTTPField.Name("Upload-Draft-Interop-Version")!
    /// Interop version 3: `?1` while the upload is not complete.
    static let uploadIncomplete = HTTPField.Name("Upload-Incomplete")!
    /// Interop versions 5 and 6: `?1` once the request carries the upload's last byte.
    static let uploadComplete = HTTPField.Name("Upload-Complete")!

    /// The draft's fields of one request.
    struct Fields {
        /// The interop version the client speaks.
        var version: Int
        /// Whether the request carries the upload's last byte; `nil` when it does not say.
        var complete: Bool?
        /// `Upload-Offset`, where the request's bytes go.
        var offset: Int64?
        /// `Upload-Length`, the whole upload's size, when the client gives it.
        var length: Int64?
    }

    /// The draft's fields of `request`, or `nil` when it does not speak the draft (no
    /// `Upload-Draft-Interop-Version`).
    /// - Throws: 400 `upload_draft_unsupported` for a version not spoken, 400
    ///   `invalid_upload_header` for a field that is not what the draft allows.
    static func fields(of request: Request) throws -> Fields? {
        guard let text = request.headers[interopVersion] else { return nil }
        guard let version = Int(text), versions.contains(version) else {
            throw ServerError(.badRequest, code: "upload_draft_unsupported",
                              message: "Upload-Draft-Interop-Version must be one of \(versions.sorted().map(String.init).joined(separator: ", "))",
                              headers: [interopVersion: String(versions.max()!)])
        }
        let field = version >= 5 ? uploadComplete : uploadIncomplete
        let complete = try request.headers[field].map { value -> Bool in
            switch value {
            case "?1": version >= 5
            case "?0": version < 5
            default: throw ServerError.badRequest("\(field) must be ?0 or ?1", code: "invalid_upload_header")
            }
        }
        return Fields(version: version, complete: complete,
                      offset: try TusProtocol.byteCount(TusProtocol.uploadOffset, in: request),
                      length: try TusProtocol.byteCount(TusProtocol.uploadLength, in: request))
    }

    /// The fields every answer to a draft request carries: the version, and where the upload
    /// stands (`Upload-Offset`, and whether it is complete in the version's own field).
    static func headers(version: Int, offset: Int64? = nil, complete: Bool? = nil) -> HTTPFields {
        var headers: HTTPFields = [interopVersion: String(version)]
        if let offset { headers[TusProtocol.uploadOffset] = String(offset) }
        if let complete {
            if version >= 5 {
                headers[uploadComplete] = complete ? "?1" : "?0"
            } else {
                headers[uploadIncomplete] = complete ? "?0" : "?1"
            }
        }
        return headers
    }

    /// Tells the client, before its body is read, that the upload can be resumed at
    /// `location`: the interim `104 Upload Resumption Supported`, written on the request's
    /// connection ahead of the final answer. Routes see the channel, not Hummingbird's response
    /// writer, so the head goes on the channel itself; it is flushed before this returns, and the
    /// final answer (written through the response writer only after) follows it on the wire.
    static func announceResumption(at location: String, version: Int, on channel: any Channel) async throws {
        var head = HTTPResponse(status: .init(code: 104, reasonPhrase: "Upload Resumption Supported"))
        head.headerFields = headers(version: version)
        head.headerFields[.location] = location
        try await channel.writeAndFlush(HTTPResponsePart.head(head))
    }
}
