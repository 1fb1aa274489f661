import AttachmentStore
import Hummingbird

/// The IETF resumable-upload draft (``ResumableUploadDraft``) on the same uploads as tus: the
/// creation that `POST /api/notes/{id}/attachments` hands over when a request speaks the draft,
/// and `HEAD`/`PATCH`/`DELETE /api/uploads/{id}` when one does (``ResumableUploadRoutes``
/// dispatches). Every answer, errors included, carries `Upload-Draft-Interop-Version`.
struct ResumableUploadDraftRoutes {
    let dependencies: ServerDependencies
    private var store: AttachmentStore { dependencies.store }

    /// Creates an upload of the request's file for `note`, announces its address with `104`,
    /// and receives the body into it: 201 with the attachment once every byte is in; 201 with
    /// the address and `Upload-Offset` when the request carried only a part. A request naming
    /// the whole file's digest (`Repr-Digest`) of bytes the server holds is answered 201 with
    /// the attachment at once, its body unread. `Upload-Checksum` counts as for tus.
    /// - Throws: 400 when the whole length is not known (`Content-Length` of a complete request,
    ///   else `Upload-Length`), 413 past the upload limit, 422 for an empty file; the store's.
    func create(note: NoteID, fields: ResumableUploadDraft.Fields, request: Request, context: AppRequestContext) async throws -> Response {
        try await speakingDraft(fields.version) {
            let contentLength = try TusProtocol.byteCount(.contentLength, in: request)
            guard let length = fields.complete == true ? (contentLength ?? fields.length) : fields.length else {
                throw ServerError.badRequest("send Upload-Length, the size of the whole file, or the whole file with its Content-Length",
                                             code: "upload_length_required")
            }
            guard length <= ServerConfiguration.uploadLimitCeiling else {
                throw ServerError.badRequest("Upload-Length may be at most 1 TiB on any server", code: "invalid_upload_header")
            }
            let limit = dependencies.configuration.maxUploadBytes
            guard length <= limit else { throw ServerError.uploadTooLarge(limit: limit) }
            guard length > 0 else { throw ServerError.unprocessable("the upload is empty", code: "empty_upload") }
            let filename = request.uri.queryParameters.get("filename").map { String($0) } ?? UploadReceiver.unnamedUpload
            let upload = try await store.createUpload(for: note, filename: filename, length: length,
                                                      lifetime: dependencies.configuration.uploadLifetime,
                                                      wholeFile: try RepresentationDigest.sha256(of: request))
            // Bytes the server already holds: finished at creation, and none of the body is read.
            if let attachment = upload.attachment { return try await finished(upload, attachment, request: request, context: context, version: fields.version) }
            let location = "/api/uploads/\(upload.id)"
            try await ResumableUploadDraft.announceResumption(at: location, version: fields.version, on: context.channel)
            return try await receive(upload.id, at: 0, request: request, context: context, version: fields.version, location: location)
        }
    }

    /// `HEAD`: 204 with where the upload stands (a silent writer asked to stop first).
    func status(_ id: UploadID, fields: ResumableUploadDraft.Fields) async throws -> Response {
        try await speakingDraft(fields.version) {
            var upload = try await store.settledUpload(id)
            if upload.isComplete && upload.attachment == nil { upload = try await store.finishUpload(upload.id) }
            var headers = ResumableUploadDraft.headers(version: fields.version, offset: upload.offset, complete: upload.attachment != nil)
            headers[TusProtocol.uploadLength] = String(upload.length)
            headers[.cacheControl] = "no-store"
            return Response(status: .noContent, headers: headers)
        }
    }

    /// `PATCH`: appends the body at `Upload-Offset`; 201 with the attachment once every byte is
    /// in, else 204 with the new offset.
    func append(_ id: UploadID, fields: ResumableUploadDraft.Fields, request: Request, context: AppRequestContext) async throws -> Response {
        try await speakingDraft(fields.version) {
            _ = try await store.resumableUpload(id)  // 404 or 410 before anything else is read
            guard let offset = fields.offset else {
                throw ServerError.badRequest("send Upload-Offset, where these bytes go (ask with HEAD)", code: "upload_offset_required")
            }
            return try await receive(id, at: offset, request: request, context: context, version: fields.version, location: nil)
        }
    }

    /// `DELETE`: cancels the upload.
    func cancel(_ id: UploadID, fields: ResumableUploadDraft.Fields) async throws -> Response {
        try await speakingDraft(fields.version) {
            try await store.cancelUpload(id)
            return Response(status: .noContent, headers: ResumableUploadDraft.headers(version: fields.version))
        }
    }

    /// Receives the request's body into upload `id` from `offset` on (an upload slot held, and
    /// the connection closed if another request takes the upload over), and answers with what
    /// the upload became.
    private func receive(_ id: UploadID, at offset: Int64, request: Request, context: AppRequestContext,
                         version: Int, location: String?) async throws -> Response {
        let receiver = UploadReceiver(dependencies: dependencies)
        let slot = try receiver.receiving()
        defer { slot.finish() }
        let upload: ResumableUpload
        do {
            upload = try await store.appendToUpload(id, at: offset, bytes: receiver.body(of: request), checksum: try TusProtocol.checksum(of: request),
                                                    interrupt: { [channel = context.channel] in channel.close(promise: nil) })
        } catch AttachmentStore.Error.upload(.offsetMismatch(let expected, let given)) {
            // The draft's conflict answer says where the upload stands.
            var failure = ServerError(AttachmentStore.Error.upload(.offsetMismatch(expected: expected, given: given)))
            failure.headers[TusProtocol.uploadOffset] = String(expected)
            throw failure
        }
        guard let attachmentID = upload.attachment else {
            var headers = ResumableUploadDraft.headers(version: version, offset: upload.offset, complete: false)
            if let location { headers[.location] = location }
            return Response(status: location == nil ? .noContent : .created, headers: headers)
        }
        return try await finished(upload, attachmentID, request: request, context: context, version: version)
    }

    /// The answer to the request that completed an upload: 201 with the attachment it became.
    private func finished(_ upload: ResumableUpload, _ attachmentID: AttachmentID, request: Request, context: AppRequestContext,
                          version: Int) async throws -> Response {
        let resource = AttachmentResource(try await store.attachment(attachmentID))
        var response = try resource.response(from: request, context: context)
        response.status = .created
        response.headers[.location] = resource.url
        for field in ResumableUploadDraft.headers(version: version, offset: upload.length, complete: true) {
            response.headers[field.name] = field.value
        }
        return response
    }

    /// Runs a handler and puts `Upload-Draft-Interop-Version` on its answer, an error's included.
    private func speakingDraft(_ version: Int, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as ServerError {
            var failure = error
            failure.headers[ResumableUploadDraft.interopVersion] = String(version)
            throw failure
        } catch let error as AttachmentStore.Error {
            var failure = ServerError(error)
            failure.headers[ResumableUploadDraft.interopVersion] = String(version)
            throw failure
        }
    }
}
