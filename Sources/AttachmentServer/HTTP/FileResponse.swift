import Hummingbird
import NIOCore

/// The one way a file addressed by its content is answered — an original, or a blob to a peer.
///
/// - `ETag` is the content hash; `If-None-Match` naming it answers 304 without reading a byte.
/// - One `Range: bytes=a-b` answers 206 (unless `If-Range` names other content); a range past
///   the end answers 416 with `Content-Range: bytes */size`. Anything else gets the whole file,
///   and so does any range of an empty file (it has no byte to be outside of; HTTP lets a
///   server ignore `Range`).
/// - `HEAD` answers the headers with no body.
/// - The bytes go with `sendfile` where the connection can (``FileBody``), else as chunks read
///   off the cooperative pool.
enum FileResponse {
    /// How the bytes of an answer are sent.
    enum Body {
        /// Chunks written by Hummingbird (read from the file, or throttled).
        case stream(ResponseBody)
        /// A range of a file, sent by the connection's ``FileBodyHandler``.
        case file(FileBody)
    }

    /// The answer to `request` for a file of `size` bytes with entity tag `tag`.
    /// - Parameters:
    ///   - headers: the route's own headers (caching, disposition, CSP), kept in every answer.
    ///   - body: the bytes of a range of the file, read when the answer needs them.
    ///   - sending: told how many bytes a `GET` is about to be sent (for counters).
    static func answer(
        _ request: Request, tag: String, size: Int64, contentType: String, headers: HTTPFields,
        body: (ClosedRange<Int64>) async throws -> Body, sending: ((Int64) -> Void)? = nil
    ) async throws -> Response {
        var headers = headers
        headers[.eTag] = tag
        headers[.acceptRanges] = "bytes"
        if EntityTag.ifNoneMatch(request.headers[.ifNoneMatch], matches: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        let ranged = size > 0 && EntityTag.ifRange(request.headers[.ifRange], matches: tag)
        let range = ranged ? ByteRange(header: request.headers[.range], size: size) : .ignored
        switch range {
        case .unsatisfiable:
            throw ServerError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                              message: "the range lies outside the \(size) bytes", headers: [.contentRange: "bytes */\(size)"])
        case .satisfiable(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            return try await response(.partialContent, to: request, headers: headers, range: bytes, body: body, sending: sending)
        case .ignored:
            guard size > 0 else {
                headers[.contentLength] = "0"
                return Response(status: .ok, headers: headers)
            }
            return try await response(.ok, to: request, headers: headers, range: 0...(size - 1), body: body, sending: sending)
        }
    }

    /// The answer with the bytes `range`: its length in `Content-Length`, and the bytes
    /// themselves only for a `GET` (a `HEAD` asks for the headers alone, so no file is opened).
    private static func response(
        _ status: HTTPResponse.Status, to request: Request, headers: HTTPFields, range: ClosedRange<Int64>,
        body: (ClosedRange<Int64>) async throws -> Body, sending: ((Int64) -> Void)?
    ) async throws -> Response {
        var headers = headers
        let count = range.upperBound - range.lowerBound + 1
        headers[.contentLength] = String(count)
        guard request.method == .get else { return Response(status: status, headers: headers) }
        sending?(count)
        switch try await body(range) {
        case .stream(let stream):
            return Response(status: status, headers: headers, body: stream)
        case .file(let file):
            headers[FileBody.field] = file.fieldValue
            return Response(status: status, headers: headers)
        }
    }

    /// The bytes `range` of the file at `path`: sent with `sendfile` when the request's
    /// connection has a ``FileBodyHandler``, else read in chunks by `fileIO`.
    static func fileBody(path: String, range: ClosedRange<Int64>, context: AppRequestContext, fileIO: FileIO) async throws -> Body {
        if (try? await context.channel.pipeline.containsHandler(type: FileBodyHandler.self).get()) != nil {
            return .file(FileBody(path: path, range: range))
        }
        return .stream(try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context))
    }
}
