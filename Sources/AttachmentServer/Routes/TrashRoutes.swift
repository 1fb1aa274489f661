import AttachmentStore
import Foundation
import Hummingbird

/// The trash: `GET /api/trash` lists what was deleted, `POST /api/trash/{id}/restore` brings
/// one item back (on every peer, by sync), `DELETE /api/trash/{id}` purges one for good and
/// `DELETE /api/trash` empties it.
struct TrashRoutes {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("trash", use: list)
        api.delete("trash", use: empty)
        api.post("trash/:id/restore", use: restore)
        api.delete("trash/:id", use: purge)
    }

    /// One item of the trash, as the API shows it.
    struct ItemResource: ResponseCodable, Equatable {
        var id: String
        /// `note` or `attachment`.
        var kind: String
        var noteId: String
        /// The note's title or the attachment's file name.
        var title: String
        var trashedAt: Date
        /// When it will be purged at the latest.
        var purgeAt: Date
        var attachmentCount: Int
        var byteCount: Int64
        var mediaType: String?
        /// Where it is restored (a `POST`).
        var restoreUrl: String

        init(_ item: TrashItem) {
            id = item.id
            kind = item.kind.rawValue
            noteId = item.noteID.rawValue
            title = item.title
            trashedAt = item.trashedAt
            purgeAt = item.purgeAt
            attachmentCount = item.attachmentCount
            byteCount = item.byteCount
            mediaType = item.mediaType
            restoreUrl = "/api/trash/\(item.id)/restore"
        }
    }

    struct ItemList: ResponseCodable {
        var items: [ItemResource]
    }

    struct PurgeReport: ResponseCodable {
        var notes: Int
        var attachments: Int
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> ItemList {
        ItemList(items: try await dependencies.store.trash().map(ItemResource.init))
    }

    @Sendable func restore(_ request: Request, context: AppRequestContext) async throws -> ItemResource {
        ItemResource(try await dependencies.store.restoreFromTrash(try Self.itemID(context)))
    }

    @Sendable func purge(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.itemID(context)
        try await dependencies.store.purgeFromTrash(id)
        dependencies.thumbnailResponses.removeAll(of: AttachmentID(rawValue: id))
        return .noContent
    }

    @Sendable func empty(_ request: Request, context: AppRequestContext) async throws -> PurgeReport {
        let report = try await dependencies.store.emptyTrash()
        return PurgeReport(notes: report.notes, attachments: report.attachments)
    }

    /// The `{id}` path parameter: a whole note or attachment id (a lowercase UUID).
    static func itemID(_ context: AppRequestContext) throws -> String {
        let text = context.parameters.get("id") ?? ""
        guard let id = Identifier.lowercasedUUID(text) else {
            throw ServerError(.notFound, code: "not_in_trash", message: "nothing in the trash is called \(text)")
        }
        return id
    }
}
