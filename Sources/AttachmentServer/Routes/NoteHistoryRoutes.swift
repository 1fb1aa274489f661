import AttachmentStore
import Foundation
import Hummingbird

/// A note's earlier versions: `GET /api/notes/{id}/versions` lists them, newest first, and
/// `POST /api/notes/{id}/versions/{version}/restore` makes one the note's text again, as a new
/// edit that syncs.
struct NoteHistoryRoutes {
    let dependencies: ServerDependencies

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("notes/:id/versions", use: list)
        api.post("notes/:id/versions/:version/restore", use: restore)
    }

    /// One earlier version, as the API shows it.
    struct VersionResource: ResponseCodable, Equatable {
        /// Names the version (the clock stamp it had; sorts in time order).
        var version: String
        var title: String
        var body: String
        var updatedAt: Date

        init(_ version: NoteVersion) {
            self.version = version.version
            title = version.title
            body = version.body
            updatedAt = version.updatedAt
        }
    }

    struct VersionList: ResponseCodable {
        var versions: [VersionResource]
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> VersionList {
        let versions = try await dependencies.store.noteVersions(of: try context.noteID())
        return VersionList(versions: versions.map(VersionResource.init))
    }

    @Sendable func restore(_ request: Request, context: AppRequestContext) async throws -> NoteResource {
        let id = try context.noteID()
        let version = context.parameters.get("version") ?? ""
        guard try await dependencies.store.noteVersions(of: id).contains(where: { $0.version == version }) else {
            throw ServerError.notFound("note \(id) keeps no such version; list them at /api/notes/\(id)/versions", code: "version_not_found")
        }
        return NoteResource(try await dependencies.store.restoreNoteVersion(id, version: version))
    }
}
