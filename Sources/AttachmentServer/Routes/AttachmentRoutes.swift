import Foundation
import AttachmentStore
import Hummingbird

/// `GET|POST /api/notes/{id}/attachments`, `GET|PATCH|DELETE /api/attachments/{id}`,
/// `PUT /api/attachments/{id}/data`, `GET /api/attachments/{id}/facts`.
struct AttachmentRoutes {
    let dependencies: ServerDependencies
    private var store: AttachmentStore { dependencies.store }

    /// The page size of `GET /api/notes/{id}/attachments?after=` without a `limit`.
    static let defaultLimit = 100
    /// The largest page of attachments a client may ask for.
    static let maximumLimit = 500

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.get("notes/:id/attachments", use: list)
        api.post("notes/:id/attachments", use: upload)
        api.get("attachments/:id", use: show)
        api.patch("attachments/:id", use: move)
        api.delete("attachments/:id", use: delete)
        api.put("attachments/:id/data", use: replace)
        api.get("attachments/:id/facts", use: facts)
    }

    /// `GET /api/attachments/{id}/facts`: what the photo's EXIF says about when and with what it
    /// was taken, for the viewer's facts panel; each left out when unknown (`{}` for a file that
    /// is not a picture, or whose bytes are on a peer).
    struct CaptureFactsResource: ResponseEncodable, Decodable, Equatable {
        var capturedAt: String?
        var camera: String?
        var lens: String?
    }

    @Sendable func facts(_ request: Request, context: AppRequestContext) async throws -> CaptureFactsResource {
        let facts = try await store.captureFacts(of: try context.attachmentID())
        return CaptureFactsResource(capturedAt: facts.capturedAt, camera: facts.camera, lens: facts.lens)
    }

    /// The note's attachments in order; `?state=` keeps those whose bytes are in that state.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> AttachmentList {
        let wanted = try request.uri.queryParameters.get("state").map { text in
            guard let state = Attachment.State(rawValue: text) else {
                throw ServerError.badRequest("state must be one of " + Attachment.State.allCases.map(\.rawValue).joined(separator: ", "),
                                             code: "bad_state")
            }
            return state
        }
        let note = try context.noteID()
        let query = request.uri.queryParameters
        let after = try query.get("after").map { try QueryInteger.parse($0, name: "after", default: 0, range: 0...Int(Int32.max)) }
        guard query.get("limit") != nil || after != nil else {
            let attachments = try await store.attachments(of: note)
            return AttachmentList(attachments: attachments.filter { wanted == nil || $0.state == wanted }.map(resource))
        }
        let limit = try QueryInteger.parse(query.get("limit"), name: "limit", default: Self.defaultLimit, range: 1...Self.maximumLimit)
        let page = try await store.attachments(of: note, after: after, limit: limit)
        var next: String?
        if page.count == limit, let last = page.last {
            var items = URLComponents()
            items.queryItems = [URLQueryItem(name: "limit", value: String(limit)), URLQueryItem(name: "after", value: String(last.position))]
            if let wanted { items.queryItems?.append(URLQueryItem(name: "state", value: wanted.rawValue)) }
            next = "/api/notes/\(note.rawValue)/attachments?" + (items.percentEncodedQuery ?? "")
        }
        return AttachmentList(attachments: page.filter { wanted == nil || $0.state == wanted }.map(resource), next: next)
    }

    /// Streams the upload into the store. One file answers 201 with the attachment; a form
    /// answers 201 with the list, or 303 back to the note page when a browser sent it without script.
    /// A JSON body (``OriginalReference``) attaches bytes the server already holds, by hash; a request
    /// speaking the IETF resumable-upload draft becomes a resumable upload (``ResumableUploadDraftRoutes``).
    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let note = try context.noteID()
        _ = try await store.note(note)  // 404 before reading any byte
        if OriginalReference.isSent(in: request) {
            return try await attachHeld(to: note, request: request, context: context)
        }
        // The IETF resumable-upload draft (iOS's URLSession): the file as a resumable upload.
        if let fields = try ResumableUploadDraft.fields(of: request), fields.complete != nil {
            return try await ResumableUploadDraftRoutes(dependencies: dependencies).create(note: note, fields: fields, request: request, context: context)
        }
        let receiver = UploadReceiver(dependencies: dependencies)
        let isForm: Bool
        if case .multipart = try receiver.kind(of: request) { isForm = true } else { isForm = false }
        let added = try await receiver.addAttachments(to: note, from: request)
        if isForm, request.headers[.accept]?.contains("text/html") == true {
            return Response(status: .seeOther, headers: [.location: "/notes/\(note.rawValue)"])
        }
        let resources = added.map { AttachmentResource($0) }
        var response = try isForm
            ? AttachmentList(attachments: resources).response(from: request, context: context)
            : resources[0].response(from: request, context: context)
        response.status = .created
        if !isForm { response.headers[.location] = resources[0].url }
        return response
    }

    /// Attaches bytes the server holds, named by hash in a JSON body: 201 with the attachment,
    /// 404 `original_not_held` when the bytes must be sent.
    private func attachHeld(to note: NoteID, request: Request, context: AppRequestContext) async throws -> Response {
        guard let reference = try await JSONBody.decode(OriginalReference.self, from: request, context: context, allowEmpty: false) else {
            throw ServerError.badRequest("send {\"hash\": \"sha256:…\", \"filename\": …}", code: "invalid_json")
        }
        let attachment = try await store.addAttachment(to: note, holding: try reference.blobHash(), filename: reference.filename,
                                                       metadata: reference.metadata ?? [:], byteCount: reference.byteCount)
        let resource = AttachmentResource(attachment)
        var response = try resource.response(from: request, context: context)
        response.status = .created
        response.headers[.location] = resource.url
        return response
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> AttachmentResource {
        resource(try await store.attachment(try context.attachmentID()))
    }

    /// The attachment as JSON; while its bytes are coming from a peer, with how far that has come.
    func resource(_ attachment: Attachment) -> AttachmentResource {
        if attachment.availability == .remote, let progress = dependencies.fetcher?.progress(for: attachment.blobHash) {
            return AttachmentResource(attachment, fetch: .init(received: progress.received, total: progress.total))
        }
        if attachment.state == .fetching, let received = attachment.fetchedBytes {
            return AttachmentResource(attachment, fetch: .init(received: received, total: attachment.byteCount))
        }
        return AttachmentResource(attachment)
    }

    /// Moves the attachment to another note (`noteId`: it goes last there) and/or to `position`
    /// among its note's (clamped to the note's range; the others keep their order around it),
    /// and/or sets its alt text (`alt`, kept in its metadata; empty removes it).
    @Sendable func move(_ request: Request, context: AppRequestContext) async throws -> AttachmentResource {
        let id = try context.attachmentID()
        guard let change = try await JSONBody.decode(AttachmentChange.self, from: request, context: context, allowEmpty: false),
              change.noteId != nil || change.position != nil || change.alt != nil else {
            throw ServerError.badRequest("send {\"position\": N}, the place the attachment moves to (0 is first), "
                                         + "{\"noteId\": ID}, the note it moves to, {\"alt\": TEXT}, its alt text, or some of them",
                                         code: "invalid_json")
        }
        if let alt = change.alt, let problem = RecordRules.problem(altText: alt) {
            throw ServerError.badRequest(problem, code: "invalid_json")
        }
        if let position = change.position, !(0...Int(Int32.max)).contains(position) {
            throw ServerError.badRequest("position must be from 0 to \(Int32.max)", code: "invalid_json")
        }
        let note = try change.noteId.map { text in
            guard let id = Identifier.lowercasedUUID(text) else {
                throw ServerError.badRequest("noteId must be a note's id (a UUID)", code: "invalid_json")
            }
            return NoteID(rawValue: id)
        }
        if let note { try await store.moveAttachment(id, toNote: note) }
        if let position = change.position { try await store.moveAttachment(id, to: position) }
        if let alt = change.alt { try await store.setAltText(id, to: alt) }
        return resource(try await store.attachment(id))
    }

    /// Moves the attachment to the trash (`?purge=true`: deletes it for good, from the trash or not).
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.attachmentID()
        guard try NoteRoutes.purge(request) else {
            try await store.moveAttachmentToTrash(id)
            return .noContent
        }
        try await store.deleteAttachment(id)
        dependencies.thumbnailResponses.removeAll(of: id)
        return .noContent
    }

    /// Replaces the bytes; id, note, position and metadata stay.
    @Sendable func replace(_ request: Request, context: AppRequestContext) async throws -> AttachmentResource {
        let id = try context.attachmentID()
        _ = try await store.attachment(id)  // 404 before reading any byte
        let replaced = try await UploadReceiver(dependencies: dependencies).replaceData(of: id, from: request)
        dependencies.thumbnailResponses.removeAll(of: id)
        return AttachmentResource(replaced)
    }

}
