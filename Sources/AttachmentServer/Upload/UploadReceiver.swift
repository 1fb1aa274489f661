import AttachmentStore
import Hummingbird
import NIOCore

/// Turns an upload request into stored attachments: a raw body (`Content-Type` plus
/// `?filename=`) or a `multipart/form-data` form with one or more files, streamed into the
/// store chunk by chunk and never held whole.
struct UploadReceiver {
    let dependencies: ServerDependencies

    /// How an upload request carries its bytes.
    enum Kind {
        /// The body is the file; its name is in `?filename=`, when given.
        case raw(filename: String?)
        /// A form with file fields, split by this boundary.
        case multipart(boundary: String)
    }

    /// Works out the kind of upload, refusing what cannot be one before any byte is read.
    /// - Throws: 415 without a usable `Content-Type`, 400 for an empty file name or a form
    ///   without a boundary, 413 when `Content-Length` already says it is too large, 422 when it
    ///   says it is empty.
    func kind(of request: Request) throws -> Kind {
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }) {
            if length > dependencies.configuration.maxUploadBytes {
                throw ServerError.uploadTooLarge(limit: dependencies.configuration.maxUploadBytes)
            }
            if length == 0 { throw ServerError.unprocessable("the upload is empty", code: "empty_upload") }
        }
        if request.uri.queryParameters.get("filename")?.isEmpty == true {
            throw ServerError.badRequest("a file name may not be empty: leave ?filename= out of a form, or give a name", code: "filename_required")
        }
        guard let header = request.headers[.contentType] else {
            throw ServerError.unsupportedMediaType("say what is uploaded with a Content-Type header (any type; the store sniffs the bytes)")
        }
        let contentType = HeaderParameters(header)
        switch contentType.value {
        case "multipart/form-data":
            guard let boundary = contentType["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
                throw ServerError.badRequest("multipart/form-data needs a boundary parameter", code: "invalid_multipart")
            }
            return .multipart(boundary: boundary)
        case "application/x-www-form-urlencoded", "":
            throw ServerError.unsupportedMediaType("upload the file as its own type with ?filename=, or as multipart/form-data")
        case let type where type.hasPrefix("multipart/"):
            throw ServerError.unsupportedMediaType("\(type) is not an upload format; use multipart/form-data")
        default:
            return .raw(filename: request.uri.queryParameters.get("filename").map { String($0) })
        }
    }

    /// The request body, counted against `limit` (default: the upload limit) and the minimum
    /// rate, and into the metrics.
    func body(of request: Request, limit: Int64? = nil) -> UploadBody<RequestBody> {
        let metrics = dependencies.metrics
        let configuration = dependencies.configuration
        let rate = configuration.minimumUploadRate.map {
            UploadRate(minimumBytesPerSecond: $0, window: configuration.uploadRateWindow)
        }
        return UploadBody(base: request.body, limit: limit ?? configuration.maxUploadBytes, rate: rate) { count in
            metrics.uploadBytes.increment(by: Int64(count))
        }
    }

    /// Stores every file of the upload at the end of `note`, in order.
    /// - Throws: 422 `no_file` for a form without a file; 400 `invalid_multipart` for a broken form;
    ///   the store's errors.
    func addAttachments(to note: NoteID, from request: Request) async throws -> [Attachment] {
        let kind = try kind(of: request)
        let slot = try receiving()
        defer { slot.finish() }
        let store = dependencies.store
        switch kind {
        case .raw(let filename):
            let name = filename ?? Self.unnamedUpload
            return [try await store.addAttachment(to: note, bytes: NonEmptyBytes(base: body(of: request)), filename: name)]
        case .multipart(let boundary):
            // Group commit: every file of the form is staged as it arrives, then all are made
            // durable and added together — or, if any part fails, none.
            let batch = store.batch(addingTo: note)
            do {
                try await eachFile(of: request, boundary: boundary) { filename, bytes in
                    try await batch.add(bytes: bytes, filename: filename)
                }
            } catch {
                await batch.discard()
                throw error
            }
            guard batch.count > 0 else { throw ServerError.unprocessable("the form holds no file", code: "no_file") }
            return try await batch.commit().map { try $0.get() }
        }
    }

    /// The name of a raw upload sent without `?filename=`.
    static let unnamedUpload = "upload"

    /// Replaces the bytes of `attachment` with the upload's (its first file, for a form); a raw
    /// body without `?filename=` keeps the attachment's name.
    func replaceData(of attachment: AttachmentID, from request: Request) async throws -> Attachment {
        let kind = try kind(of: request)
        let slot = try receiving()
        defer { slot.finish() }
        let store = dependencies.store
        switch kind {
        case .raw(let filename):
            return try await store.replaceAttachmentData(attachment, bytes: NonEmptyBytes(base: body(of: request)), filename: filename)
        case .multipart(let boundary):
            var replaced: Attachment?
            try await eachFile(of: request, boundary: boundary) { filename, bytes in
                guard replaced == nil else { return }
                replaced = try await store.replaceAttachmentData(attachment, bytes: bytes, filename: filename)
            }
            guard let replaced else { throw ServerError.unprocessable("the form holds no file", code: "no_file") }
            return replaced
        }
    }

    /// An upload being received: its slot, and its place in `attach_uploads_in_progress`.
    struct Receiving {
        let slot: UploadSlots.Slot
        let metrics: ServerMetrics

        func finish() {
            metrics.uploadsInProgress.decrement()
            slot.finish()
        }
    }

    /// Takes an upload slot and counts the upload in progress until it is finished.
    /// - Throws: 503 ``ServerError/tooManyUploads`` when every slot is taken.
    func receiving() throws -> Receiving {
        guard let slot = dependencies.uploadSlots.take() else { throw ServerError.tooManyUploads }
        dependencies.metrics.uploadsInProgress.increment()
        return Receiving(slot: slot, metrics: dependencies.metrics)
    }

    /// Calls `body` with each file part of a form, in order; other fields are skipped.
    private func eachFile(
        of request: Request, boundary: String,
        _ body: (String, NonEmptyBytes<MultipartReader<UploadBody<RequestBody>>.PartBody>) async throws -> Void
    ) async throws {
        let reader = MultipartReader(boundary: boundary, body: self.body(of: request))
        do {
            while let part = try await reader.nextPart() {
                guard let filename = part.filename, !filename.isEmpty else { continue }
                try await body(filename, NonEmptyBytes(base: reader.body()))
            }
        } catch let error as MultipartReader<UploadBody<RequestBody>>.Malformed {
            throw ServerError.badRequest("the form is not valid multipart/form-data: \(error)", code: "invalid_multipart")
        }
    }
}
