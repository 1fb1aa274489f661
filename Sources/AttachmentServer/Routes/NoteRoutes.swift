import AttachmentStore
import Foundation
import Hummingbird

/// `GET|POST /api/notes`, `GET|PATCH|DELETE /api/notes/{id}`.
struct NoteRoutes {
    let dependencies: ServerDependencies
    private var store: AttachmentStore { dependencies.store }

    /// The largest page a client may ask for.
    static let maximumLimit = 200

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("notes", use: list)
        api.post("notes", use: create)
        api.get("notes/:id", use: show)
        api.patch("notes/:id", use: update)
        api.delete("notes/:id", use: delete)
    }

    /// Notes, newest change first unless `sort` says otherwise (`updated`, `created`, `title`);
    /// `q` searches title and body, `limit` (1...200, default 50) sizes the page, `after` (the
    /// cursor of the previous page's last note, as `next` gives it: every page costs the same)
    /// says where it starts, and `offset` skips that many more (see ``NoteListQuery``).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> NotePage {
        let parameters = request.uri.queryParameters
        let limit = try QueryInteger.parse(parameters.get("limit"), name: "limit", default: 50, range: 1...Self.maximumLimit)
        let offset = try QueryInteger.parse(parameters.get("offset"), name: "offset", default: 0, range: 0...Int(Int32.max))
        let query = try NoteListQuery(parameters)
        let notes = try await query.notes(from: store, limit: limit, offset: offset)
        let next = query.next(after: notes, limit: limit).map { cursor in
            var items = URLComponents()
            items.queryItems = [URLQueryItem(name: "limit", value: String(limit)), URLQueryItem(name: "after", value: cursor.description)]
                + (query.order == .updated ? [] : [URLQueryItem(name: "sort", value: query.order.rawValue)])
                + (query.text.map { [URLQueryItem(name: "q", value: $0)] } ?? [])
            return "/api/notes?" + (items.percentEncodedQuery ?? "")
        }
        return NotePage(notes: notes.map(NoteResource.init), limit: limit, offset: offset, next: next)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<NoteResource> {
        let creation = try await JSONBody.decode(NoteCreation.self, from: request, context: context, allowEmpty: true)
        let note = try await store.createNote(title: creation?.title ?? "", body: creation?.body ?? "")
        let resource = NoteResource(note)
        return EditedResponse(status: .created, headers: [.location: resource.url], response: resource)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> NoteResource {
        NoteResource(try await store.note(try context.noteID()))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> NoteResource {
        let id = try context.noteID()
        guard let change = try await JSONBody.decode(NoteChange.self, from: request, context: context, allowEmpty: false) else {
            throw ServerError.badRequest("send a JSON object with `title` and/or `body`", code: "invalid_json")
        }
        return NoteResource(try await store.updateNote(id, title: change.title, body: change.body))
    }

    /// Moves the note to the trash (`?purge=true`: deletes it for good, from the trash or not).
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.noteID()
        guard try Self.purge(request) else {
            try await store.moveNoteToTrash(id)
            return .noContent
        }
        let listed: [AttachmentID]
        do {
            listed = try await store.attachments(of: id).map(\.id)
        } catch AttachmentStore.Error.noteNotFound {
            listed = []  // a note in the trash lists none; deleteNote below still answers 404 for one that is gone
        }
        try await store.deleteNote(id)
        for attachment in listed { dependencies.thumbnailResponses.removeAll(of: attachment) }
        return .noContent
    }

    /// The `purge` query parameter of a `DELETE`: `true` deletes for good, `false` (the
    /// default) moves to the trash.
    static func purge(_ request: Request) throws -> Bool {
        switch request.uri.queryParameters.get("purge") {
        case nil, "false": return false
        case "true": return true
        default: throw ServerError.badRequest("`purge` must be true or false", code: "invalid_query")
        }
    }
}
