import AttachmentStore
import Hummingbird

/// `GET /api/attachments/{id}/original`: the bytes exactly as stored.
///
/// - `ETag` is the content hash, so `If-None-Match` answers 304 without touching the disk.
/// - `Range: bytes=a-b` (one range) answers 206; a range past the end answers 416.
/// - With `?v=<hash>` naming the current content, the answer is cached for a year as
///   immutable, by the client only (``CacheControl/immutablePrivate``): that address can never
///   mean other bytes. Without it, clients revalidate.
/// - Only plain raster images are `inline`; everything else (SVG, HTML, XML, PDF, unknown)
///   is a download with a sandboxing CSP, so it cannot run in this origin.
struct OriginalRoute {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("attachments/:id/original", use: original)
    }

    @Sendable func original(_ request: Request, context: AppRequestContext) async throws -> Response {
        let content = try await dependencies.store.original(of: try context.attachmentID())
        let attachment = content.attachment
        var headers: HTTPFields = [
            .cacheControl: request.uri.queryParameters.get("v") == content.hash.rawValue
                ? CacheControl.immutablePrivate : CacheControl.revalidate,
            .contentDisposition: ContentDisposition.header(for: attachment.mediaType, filename: attachment.filename),
        ]
        if !ContentDisposition.isInline(attachment.mediaType) {
            headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        }
        let path = content.fileURL.path(percentEncoded: false)
        return try await FileResponse.answer(
            request, tag: EntityTag.of(content.hash), size: content.byteCount, contentType: attachment.mediaType, headers: headers
        ) { bytes in
            try await FileResponse.fileBody(path: path, range: bytes, context: context, fileIO: dependencies.fileIO)
        }
    }
}
