import AttachmentStore
import Hummingbird

/// `GET /api/attachments/{id}/thumbnail?size=N`. Waits for the store's thumbnail pipeline.
struct ThumbnailRoute {
    let dependencies: ServerDependencies

    func register(on api: RouterGroup<AppRequestContext>) {
        api.get("attachments/:id/thumbnail", use: thumbnail)
    }

    @Sendable func thumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try AttachmentRoutes.attachmentID(context)
        _ = try Self.size(request, allowed: dependencies.configuration.thumbnailSizes)
        _ = try await dependencies.store.attachment(id)
        throw ServerError(.notImplemented, code: "thumbnails_unavailable", message: "thumbnails are not built yet")
    }

    /// The `size` query parameter, which must be one of `allowed`.
    /// - Throws: 400 `invalid_size`.
    static func size(_ request: Request, allowed: [Int]) throws -> Int {
        guard let text = request.uri.queryParameters.get("size") else { return allowed.first ?? 200 }
        guard let size = Int(text), allowed.contains(size) else {
            throw ServerError.badRequest("size must be one of \(allowed.map(String.init).joined(separator: ", "))", code: "invalid_size")
        }
        return size
    }

    /// Copies the pipeline's counters into the metrics before a scrape.
    static func sampleGauges(_ dependencies: ServerDependencies) async {}
}
