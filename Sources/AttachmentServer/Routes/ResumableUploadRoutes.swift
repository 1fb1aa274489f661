import AttachmentStore
import Hummingbird

/// Resumable uploads by the tus 1.0 protocol (core, creation, termination, checksum with
/// sha256, expiration) on `/api/uploads`:
///
/// - `OPTIONS /api/uploads` says what the server speaks;
/// - `POST /api/uploads` with `Upload-Length` and `Upload-Metadata` (`noteId`, `filename`)
///   creates an upload and answers 201 with its `Location`; with `Repr-Digest: sha-256=:…:` (the
///   whole file's digest, RFC 9530) naming bytes the server holds, the upload is finished at once
///   (`Upload-Offset` its length, `Attachment-Id`), and nothing need be sent;
/// - `HEAD /api/uploads/{id}` answers how many bytes the store holds (`Upload-Offset`);
/// - `PATCH /api/uploads/{id}` appends bytes at exactly that offset; when the last arrive the
///   upload becomes an attachment of its note (`Attachment-Id`);
/// - `DELETE /api/uploads/{id}` cancels it.
///
/// A `HEAD`, `PATCH` or `DELETE` for an upload another request holds, whose bytes stopped
/// arriving for a second (its client's link died silently), takes it over: the old request
/// is stopped, what it received is kept, and the new one proceeds from the true offset. A live
/// writer still gets 423.
///
/// Every answer, errors included, carries `Tus-Resumable`. A request that speaks the IETF
/// resumable-upload draft instead (`Upload-Draft-Interop-Version`) is answered by
/// ``ResumableUploadDraftRoutes``, on the same uploads.
struct ResumableUploadRoutes {
    let dependencies: ServerDependencies
    private var store: AttachmentStore { dependencies.store }
    private var draft: ResumableUploadDraftRoutes { ResumableUploadDraftRoutes(dependencies: dependencies) }

    func register(on api: some RouterMethods<AppRequestContext>) {
        api.on("uploads", method: .options, use: options)
        api.post("uploads", use: create)
        api.head("uploads/:upload", use: status)
        api.patch("uploads/:upload", use: append)
        api.delete("uploads/:upload", use: cancel)
    }

    @Sendable func options(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(status: .noContent, headers: [
            TusProtocol.tusResumable: TusProtocol.version, TusProtocol.tusVersion: TusProtocol.version,
            TusProtocol.tusExtension: TusProtocol.extensions, TusProtocol.tusMaxSize: String(dependencies.configuration.maxUploadBytes),
            TusProtocol.tusChecksumAlgorithm: TusProtocol.checksumAlgorithms,
        ])
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await speakingTus {
            try TusProtocol.requireVersion(request)
            guard request.headers[TusProtocol.uploadDeferLength] == nil else {
                throw ServerError.badRequest("send Upload-Length: this server does not take uploads of unknown length", code: "upload_length_required")
            }
            guard let length = try TusProtocol.byteCount(TusProtocol.uploadLength, in: request) else {
                throw ServerError.badRequest("send Upload-Length, the size of the whole file", code: "upload_length_required")
            }
            guard length <= ServerConfiguration.uploadLimitCeiling else {
                throw ServerError.badRequest("Upload-Length may be at most 1 TiB on any server", code: "invalid_tus_header")
            }
            let limit = dependencies.configuration.maxUploadBytes
            guard length <= limit else { throw ServerError.uploadTooLarge(limit: limit) }
            guard length > 0 else { throw ServerError.unprocessable("the upload is empty", code: "empty_upload") }
            let metadata = try TusProtocol.metadata(of: request)
            guard let noteText = metadata["noteId"] else {
                throw ServerError.badRequest("name the note in Upload-Metadata (noteId)", code: "note_required")
            }
            let note = NoteID(rawValue: try Identifier.parse(noteText, kind: "note"))
            guard let filename = metadata["filename"], !filename.isEmpty else {
                throw ServerError.badRequest("name the file in Upload-Metadata (filename)", code: "filename_required")
            }
            let upload = try await store.createUpload(for: note, filename: filename, length: length, metadata: metadata,
                                                      lifetime: dependencies.configuration.uploadLifetime,
                                                      wholeFile: try RepresentationDigest.sha256(of: request))
            // Bytes the server already holds finish the upload at once: the answer says where it
            // ends and what it became, and the client sends nothing.
            var headers = Self.headers(upload)
            headers[.location] = "/api/uploads/\(upload.id)"
            if upload.attachment == nil { headers[TusProtocol.uploadOffset] = nil }
            return Response(status: .created, headers: headers)
        }
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let fields = try ResumableUploadDraft.fields(of: request) { return try await draft.status(try Self.uploadID(context), fields: fields) }
        return try await speakingTus {
            try TusProtocol.requireVersion(request)
            // A writer whose client went silent is asked to stop first, so the offset is true.
            var upload = try await store.settledUpload(try Self.uploadID(context))
            // Every byte arrived but the attachment was not added (a crash or a lost note in
            // between): finish now, so the answer says what it became.
            if upload.isComplete && upload.attachment == nil { upload = try await store.finishUpload(upload.id) }
            var headers = Self.headers(upload)
            headers[TusProtocol.uploadLength] = String(upload.length)
            headers[TusProtocol.uploadMetadata] = TusProtocol.metadataHeader(upload.metadata)
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers)
        }
    }

    @Sendable func append(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let fields = try ResumableUploadDraft.fields(of: request) {
            return try await draft.append(try Self.uploadID(context), fields: fields, request: request, context: context)
        }
        return try await speakingTus {
            try TusProtocol.requireVersion(request)
            let id = try Self.uploadID(context)
            _ = try await store.resumableUpload(id)  // 404 or 410 before anything else is read
            let offset = try TusProtocol.patchOffset(of: request)
            let checksum = try TusProtocol.checksum(of: request)
            let receiver = UploadReceiver(dependencies: dependencies)
            let slot = try receiver.receiving()
            defer { slot.finish() }
            // Another request for this upload, after this one's bytes stopped arriving, closes this
            // connection: the lock handover (what arrived is kept).
            let upload = try await store.appendToUpload(id, at: offset, bytes: receiver.body(of: request), checksum: checksum,
                                                        interrupt: { [channel = context.channel] in channel.close(promise: nil) })
            return Response(status: .noContent, headers: Self.headers(upload))
        }
    }

    @Sendable func cancel(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let fields = try ResumableUploadDraft.fields(of: request) { return try await draft.cancel(try Self.uploadID(context), fields: fields) }
        return try await speakingTus {
            try TusProtocol.requireVersion(request)
            try await store.cancelUpload(try Self.uploadID(context))
            return Response(status: .noContent)
        }
    }

    /// `Upload-Offset`, and `Upload-Expires` or the attachment an upload became.
    private static func headers(_ upload: ResumableUpload) -> HTTPFields {
        var headers: HTTPFields = [TusProtocol.uploadOffset: String(upload.offset)]
        if let attachment = upload.attachment {
            headers[TusProtocol.attachmentID] = attachment.rawValue
        } else {
            headers[TusProtocol.uploadExpires] = TusProtocol.httpDate(upload.expiresAt)
        }
        return headers
    }

    /// Runs a handler and puts `Tus-Resumable` on its answer, an error's included.
    private func speakingTus(_ body: () async throws -> Response) async throws -> Response {
        do {
            var response = try await body()
            response.headers[TusProtocol.tusResumable] = TusProtocol.version
            return response
        } catch let error as ServerError {
            var failure = error
            failure.headers[TusProtocol.tusResumable] = TusProtocol.version
            throw failure
        } catch let error as AttachmentStore.Error {
            var failure = ServerError(error)
            failure.headers[TusProtocol.tusResumable] = TusProtocol.version
            throw failure
        }
    }

    /// The `{upload}` path parameter as an upload id (404 when it cannot be one).
    static func uploadID(_ context: AppRequestContext) throws -> UploadID {
        guard let text = context.parameters.get("upload"), let id = UploadID(rawValue: text) else {
            throw ServerError.notFound("no such upload", code: "upload_not_found")
        }
        return id
    }
}
