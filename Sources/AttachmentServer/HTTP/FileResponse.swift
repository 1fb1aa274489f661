import Hummingbird

/// The one way a file addressed by its content is answered — an original, or a blob to a peer.
///
/// - `ETag` is the content hash; `If-None-Match` naming it answers 304 without reading a byte.
/// - One `Range: bytes=a-b` answers 206 (unless `If-Range` names other content); a range past
///   the end answers 416 with `Content-Range: bytes */size`. Anything else gets the whole file,
///   and so does any range of an empty file (it has no byte to be outside of; HTTP lets a
///   server ignore `Range`).
/// - `HEAD` answers the headers with no body.
enum FileResponse {
    /// The answer to `request` for a file of `size` bytes with entity tag `tag`.
    /// - Parameters:
    ///   - headers: the route's own headers (caching, disposition, CSP), kept in every answer.
    ///   - body: the bytes of a range of the file, read when the answer needs them.
    ///   - sending: told how many bytes a `GET` is about to be sent (for counters).
    static func answer(
        _ request: Request, tag: String, size: Int64, contentType: String, headers: HTTPFields,
        body: (ClosedRange<Int64>) async throws -> ResponseBody, sending: ((Int64) -> Void)? = nil
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
            if request.method == .get { sending?(bytes.upperBound - bytes.lowerBound + 1) }
            return Response(status: .partialContent, headers: headers, body: try await body(bytes))
        case .ignored:
            headers[.contentLength] = String(size)
            guard size > 0, request.method == .get else { return Response(status: .ok, headers: headers) }
            sending?(size)
            return Response(status: .ok, headers: headers, body: try await body(0...(size - 1)))
        }
    }
}
