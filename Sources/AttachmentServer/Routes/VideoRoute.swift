import AttachmentStore
import Hummingbird

/// `GET /api/attachments/{id}/video`: the copy of a video browsers play (H.264 and AAC in MP4,
/// index at the front), made by the store on first request and kept in its cache.
///
/// - `Range: bytes=a-b` answers 206, as a `<video>` element asks while it plays and seeks; a
///   range past the end answers 416.
/// - The ETag names the original's content, so `If-None-Match` answers 304; with `?v=<hash>`
///   naming the current content the answer is cached as immutable by the client only.
/// - Attachments that are not videos answer 404 `not_a_video`; a clip ffmpeg refuses, 422.
struct VideoRoute {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("attachments/:id/video", use: video)
    }

    /// The strong ETag of the playable copy of content `hash`.
    static func tag(hash: BlobHash) -> String { "\"\(hash.rawValue)-video\"" }

    @Sendable func video(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.attachmentID()
        let store = dependencies.store
        let attachment = try await store.attachment(id)
        let tag = Self.tag(hash: attachment.blobHash)
        let immutable = request.uri.queryParameters.get("v") == attachment.blobHash.rawValue
        let cacheControl = immutable ? CacheControl.immutablePrivate : CacheControl.revalidate
        if EntityTag.ifNoneMatch(request.headers[.ifNoneMatch], matches: tag) {
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: cacheControl])
        }
        let video = try await store.playableVideo(for: id)
        let headers: HTTPFields = [.cacheControl: cacheControl, .contentDisposition: "inline"]
        return try await FileResponse.answer(request, tag: Self.tag(hash: video.originalHash), size: video.byteCount,
                                             contentType: "video/mp4", headers: headers) { bytes in
            try await FileResponse.fileBody(path: video.path, range: bytes, context: context, fileIO: dependencies.fileIO)
        }
    }
}
