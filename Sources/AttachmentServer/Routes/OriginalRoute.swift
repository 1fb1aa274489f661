import AttachmentStore
import Hummingbird

/// `GET /api/attachments/{id}/original`: the bytes exactly as stored; and
/// `GET /api/attachments/{id}/motion`: a Live Photo's clip, its second original, the same way
/// (404 `not_a_live_photo` for any other attachment).
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
        api.get("attachments/:id/motion", use: motion)
    }

    @Sendable func original(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await answer(request, context: context, with: try await dependencies.store.original(of: try context.attachmentID()))
    }

    @Sendable func motion(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await answer(request, context: context, with: try await dependencies.store.motionOriginal(of: try context.attachmentID()))
    }

    /// The bytes of `content`, under its name and type.
    private func answer(_ request: Request, context: AppRequestContext, with content: AttachmentContent) async throws -> Response {
        var headers: HTTPFields = [
            .cacheControl: request.uri.queryParameters.get("v") == content.hash.rawValue
                ? CacheControl.immutablePrivate : CacheControl.revalidate,
            .contentDisposition: ContentDisposition.header(for: content.mediaType, filename: content.filename),
        ]
        if !ContentDisposition.isInline(content.mediaType) {
            headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        }
        let path = content.fileURL.path(percentEncoded: false)
        return try await FileResponse.answer(
            request, tag: EntityTag.of(content.hash), size: content.byteCount, contentType: content.mediaType, headers: headers
        ) { bytes in
            try await FileResponse.fileBody(path: path, range: bytes, context: context, fileIO: dependencies.fileIO)
        }
    }
}
