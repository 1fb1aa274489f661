import AttachmentStore
import Hummingbird

/// `HEAD /api/blobs/sha256/{hash}`: whether the server holds an original with these bytes —
/// 200, or 404 `original_not_held` — so a client sends only what is missing. Attach held bytes
/// with the JSON form of `POST /api/notes/{id}/attachments` (``OriginalReference``).
struct HeldOriginalRoute {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.head("blobs/sha256/:hash", use: held)
    }

    @Sendable func held(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hash = try context.blobHash()
        guard try await dependencies.store.holdsOriginal(hash) else { throw ServerError(AttachmentStore.Error.originalNotHeld(hash)) }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }
}
