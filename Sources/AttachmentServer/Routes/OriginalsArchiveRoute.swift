import AttachmentStore
import Foundation
import Hummingbird

/// `GET /api/notes/{id}/originals.zip`: the originals of a note's attachments as one zip,
/// streamed as it is read (memory stays at one chunk, whatever the archive's size), each file
/// byte for byte under its own name (made safe and unique: ``ZipEntryNames``), in the note's
/// order; a Live Photo gives its still, then its clip. `?ids=A,B,…` picks some of them (at most ``maximumIDs``), still in the note's order.
///
/// Everything is checked before the first byte goes out: the note, and that each id names one
/// of its attachments. An original whose bytes are on a peer is fetched when its turn comes,
/// as opening it would; if that fails, the connection is cut and the download is incomplete
/// (the zip lacks its central directory, so no unzip takes it for whole).
struct OriginalsArchiveRoute {
    let dependencies: ServerDependencies

    /// The most attachments one `ids` may name.
    static let maximumIDs = 10_000

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("notes/:id/originals.zip", use: archive)
    }

    @Sendable func archive(_ request: Request, context: AppRequestContext) async throws -> Response {
        let store = dependencies.store
        let noteID = try context.noteID()
        let note = try await store.note(noteID)
        var chosen = try await store.attachments(of: noteID)
        if let ids = request.uri.queryParameters.get("ids") {
            let wanted = try Self.ids(String(ids))
            let present = Set(chosen.map(\.id.rawValue))
            if let missing = wanted.first(where: { !present.contains($0) }) {
                throw ServerError(.notFound, code: "attachment_not_found", message: "no attachment \(missing) in this note")
            }
            chosen = chosen.filter { wanted.contains($0.id.rawValue) }
        }
        let title = note.title.isEmpty ? "Untitled" : note.title
        let headers: HTTPFields = [
            .contentType: "application/zip",
            .contentDisposition: ContentDisposition.header(for: "application/zip", filename: ZipEntryNames.safe(title) + ".zip"),
            .cacheControl: "no-store",
        ]
        let body = ResponseBody { [chosen] writer in
            var zip = ZipStream()
            var names = ZipEntryNames()
            for attachment in chosen {
                var originals = [try await store.original(of: attachment.id)]
                if attachment.isLivePhoto { originals.append(try await store.motionOriginal(of: attachment.id)) }
                for content in originals {
                    try await writer.write(zip.begin(name: names.name(for: content.filename), modified: attachment.createdAt,
                                                     size: content.byteCount))
                    for try await chunk in content.chunks() {
                        zip.add(chunk)
                        try await writer.write(ByteBuffer(bytes: chunk))
                    }
                    try await writer.write(zip.finish())
                }
            }
            try await writer.write(zip.end())
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The ids of `?ids=`: comma-separated attachment ids, each a UUID.
    /// - Throws: 400 `invalid_query` for an empty list, a malformed id or more than ``maximumIDs``.
    static func ids(_ text: String) throws -> Set<String> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= maximumIDs else {
            throw ServerError.badRequest("`ids` names 1 to \(maximumIDs) attachments, separated by commas", code: "invalid_query")
        }
        return Set(try parts.map { part in
            guard let id = Identifier.lowercasedUUID(String(part)) else {
                throw ServerError.badRequest("`ids` holds \(String(part.prefix(40)).debugDescription), not an attachment id", code: "invalid_query")
            }
            return id
        })
    }
}
