import AttachmentStore
import Hummingbird

/// `GET /api/attachments/{id}/thumbnail?size=N`: a downscaled, upright copy without metadata,
/// made by the store's background pipeline and cached there (memory, then disk).
///
/// `size` must be one of the configured sizes (default 200, 400, 800, 2048): a fixed set keeps
/// the cache small and stops clients from asking for arbitrary renders. Attachments that are
/// not images, and images that cannot be decoded, answer 422. The ETag names the content hash
/// and the size, so `If-None-Match` answers 304 before any render; with `?v=<hash>` the answer
/// is cached as immutable, by browsers and in ``ThumbnailResponseCache`` (a repeat is answered
/// without a catalog read).
struct ThumbnailRoute {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("attachments/:id/thumbnail", use: thumbnail)
    }

    @Sendable func thumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.attachmentID()
        let query = request.uri.queryParameters  // parsed once for both
        let size = try Self.size(query.get("size"), allowed: dependencies.configuration.thumbnailSizes)
        let version = query.get("v")
        if let version, let cached = dependencies.thumbnailResponses.entry(for: .init(attachment: id, hash: version, size: size)) {
            return Self.answer(cached.body, mediaType: cached.mediaType, hash: version, size: size, immutable: true,
                               ifNoneMatch: request.headers[.ifNoneMatch], metrics: dependencies.metrics, result: "cache_hit")
        }
        let store = dependencies.store
        let attachment = try await store.attachment(id)
        let hash = attachment.blobHash.rawValue
        let immutable = version == hash
        if EntityTag.ifNoneMatch(request.headers[.ifNoneMatch], matches: Self.tag(hash: hash, size: size)) {
            return Self.answer(nil, mediaType: nil, hash: hash, size: size, immutable: immutable,
                               ifNoneMatch: request.headers[.ifNoneMatch], metrics: dependencies.metrics, result: "not_modified")
        }
        let thumbnail: Thumbnail
        do {
            thumbnail = try await store.thumbnail(for: id, maxPixelSize: size)
        } catch let error as AttachmentStore.Error {
            dependencies.metrics.recordThumbnail(result: ServerError(error).code)
            throw error
        }
        let body = ByteBuffer(bytes: thumbnail.data)
        if thumbnail.isProvisional {
            // A peer's picture, until the original arrives: never cached for good, and under
            // its own tag, so a client holding it asks again and then gets our own render.
            return Self.answer(body, mediaType: thumbnail.mediaType, hash: hash + "-peer", size: size, immutable: false,
                               ifNoneMatch: request.headers[.ifNoneMatch], metrics: dependencies.metrics, result: "ok")
        }
        if immutable {
            dependencies.thumbnailResponses.insert(
                .init(body: body, mediaType: thumbnail.mediaType, created: .now), for: .init(attachment: id, hash: hash, size: size))
        }
        return Self.answer(body, mediaType: thumbnail.mediaType, hash: hash, size: size, immutable: immutable,
                           ifNoneMatch: request.headers[.ifNoneMatch], metrics: dependencies.metrics, result: "ok")
    }

    /// The strong ETag of the thumbnail of content `hash` at `size`.
    static func tag(hash: String, size: Int) -> String { "\"\(hash)-\(size)\"" }

    /// A 200 with `body`, or a 304 when `body` is `nil` or the client already has this tag
    /// (`ifNoneMatch`, the request's `If-None-Match`). Also the answer of
    /// ``CachedThumbnailAnswers``, which answers cached thumbnails before the router.
    static func answer(
        _ body: ByteBuffer?, mediaType: String?, hash: String, size: Int, immutable: Bool, ifNoneMatch: String?,
        metrics: ServerMetrics, result: String
    ) -> Response {
        let tag = tag(hash: hash, size: size)
        var headers: HTTPFields = [.eTag: tag, .cacheControl: immutable ? CacheControl.immutablePrivate : CacheControl.revalidate]
        guard let body, let mediaType, !EntityTag.ifNoneMatch(ifNoneMatch, matches: tag) else {
            metrics.recordThumbnail(result: "not_modified")
            return Response(status: .notModified, headers: headers)
        }
        metrics.recordThumbnail(result: result)
        headers[.contentType] = mediaType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// The `size` query parameter (`text`), which must be one of `allowed`; the smallest when absent.
    /// - Throws: 400 `invalid_size`.
    static func size(_ text: String?, allowed: [Int]) throws -> Int {
        guard let text else { return allowed.min() ?? 200 }
        guard let size = Int(text), allowed.contains(size) else {
            throw ServerError.badRequest("size must be one of \(allowed.map(String.init).joined(separator: ", "))", code: "invalid_size")
        }
        return size
    }
}
