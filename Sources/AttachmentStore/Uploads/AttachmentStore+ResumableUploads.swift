import Foundation

extension AttachmentStore {
    /// How long an upload that receives nothing is kept: one day.
    public static let defaultUploadLifetime: Duration = .seconds(24 * 3600)

    /// Where this store keeps its uploads: the catalog and the object store when its originals
    /// live in one (so every server of the store shares them), else `uploads/`.
    var uploadStaging: any UploadStaging {
        if let objectStore = configuration.objectStore, let backend = backend as? any UploadingBlobBackend {
            return SharedUploadStaging(catalog: catalog, backend: backend, objectStore: objectStore, layout: layout,
                                       logger: configuration.logger)
        }
        return FolderUploadStaging(folder: UploadFolder(path: layout.uploadsPath))
    }

    /// Starts a resumable upload of `length` bytes that becomes an attachment of `note`, named
    /// `filename`, when its last byte arrives.
    /// - Parameters:
    ///   - note: the note the finished file is added to; it must exist now.
    ///   - filename: the attachment's name: its last `/` part, which must keep ``RecordRules``.
    ///   - length: the whole file's size in bytes, more than zero.
    ///   - metadata: kept with the upload and given back as it was; keys other than the ones the
    ///     caller uses to name the note and file can be kept as the attachment's metadata.
    ///   - attachmentMetadata: the metadata the attachment gets when the upload finishes
    ///     (none by default).
    ///   - lifetime: how long the upload is kept after it last received bytes.
    ///   - wholeFile: the SHA-256 of the whole file, when the client knows it: if the store
    ///     already holds those bytes (of `length`), the upload finishes at once and the answer
    ///     names the attachment, without a byte sent (see ``addAttachment(to:holding:filename:metadata:byteCount:id:)``).
    /// - Throws: ``Error/invalidArgument(_:)`` for a file name that breaks ``RecordRules``;
    ///   ``Error/noteNotFound(_:)``; ``Error/upload(_:)`` with
    ///   ``ResumableUploadError/invalidLength(_:)``; ``Error/writeFailed(path:cause:)``.
    public func createUpload(
        for note: NoteID, filename: String, length: Int64, metadata: [String: String] = [:],
        attachmentMetadata: [String: String] = [:], lifetime: Duration = defaultUploadLifetime, wholeFile: BlobHash? = nil
    ) async throws -> ResumableUpload {
        guard length > 0 else { throw Error.upload(.invalidLength(length)) }
        let filename = try RecordRules.filename(given: filename)
        guard try await catalog.read({ db in try NoteRecord.isLive(note.rawValue, in: db) }) else {
            throw Error.noteNotFound(note.rawValue)
        }
        let id = UploadID.make()
        let description = UploadDescription(
            note: note.rawValue, filename: filename, length: length, metadata: metadata,
            attachmentMetadata: attachmentMetadata, createdAt: Date(),
            lifetimeSeconds: Double(lifetime.components.seconds), attachment: AttachmentID.make().rawValue)
        try await uploadStaging.create(id, description: description)
        let upload = description.upload(id, offset: 0, lastActivity: nil, finished: false)
        guard let wholeFile, try await holdsOriginal(wholeFile) else { return upload }
        return try await finishHeld(upload, hash: wholeFile)
    }

    /// Finishes a new upload with bytes the store already holds: the attachment it was created
    /// for is added from them, and the upload is done. If they went meanwhile (a `gc`), the
    /// upload stays as it was, waiting for its bytes.
    private func finishHeld(_ upload: ResumableUpload, hash: BlobHash) async throws -> ResumableUpload {
        guard let progress = try await uploadStaging.progress(of: upload.id) else { throw Error.upload(.notFound(upload.id)) }
        let description = progress.description
        let writer = try await lockUpload(upload.id, holder: nil)
        return try await releasing(writer) {
            do {
                _ = try await addAttachment(to: upload.note, holding: hash, filename: description.filename,
                                            metadata: description.attachmentMetadata, byteCount: upload.length,
                                            id: AttachmentID(rawValue: description.attachment))
            } catch Error.originalNotHeld {
                return upload
            }
            try await writer.finish()
            var finished = upload
            finished.offset = upload.length
            finished.attachment = AttachmentID(rawValue: description.attachment)
            return finished
        }
    }

    /// Where an upload stands: its offset, and the attachment it became once finished.
    /// - Throws: ``Error/upload(_:)`` with ``ResumableUploadError/notFound(_:)`` or
    ///   ``ResumableUploadError/expired(_:)``.
    public func resumableUpload(_ id: UploadID) async throws -> ResumableUpload {
        guard let progress = try await uploadStaging.progress(of: id) else { throw Error.upload(.notFound(id)) }
        let upload = progress.upload(id)
        guard upload.expiresAt > Date() || upload.attachment != nil else { throw Error.upload(.expired(id)) }
        return upload
    }

    /// Where an upload stands once a writer whose bytes stopped arriving was asked to stop and
    /// kept what it received (the lock handover, see ``appendToUpload(_:at:bytes:checksum:interrupt:)``):
    /// what a client resuming after its link died asks first. A writer whose bytes still arrive
    /// is left alone, and the answer counts what it made durable so far.
    /// - Throws: as ``resumableUpload(_:)``.
    public func settledUpload(_ id: UploadID) async throws -> ResumableUpload {
        let upload = try await resumableUpload(id)
        guard upload.attachment == nil else { return upload }
        if case .locked(let writer) = try await lockUploadWaiting(id, holder: nil) {
            await writer.release()
        }
        return try await resumableUpload(id)
    }

    /// Appends the bytes of one request to an upload that holds exactly `offset` bytes, makes
    /// them durable, and — when they were the last — adds the attachment (see
    /// ``finishUpload(_:)``).
    ///
    /// If `bytes` throws midway (the connection dropped), what arrived is kept and durable, so
    /// the client continues from there; with a `checksum`, nothing of this request counts unless
    /// all of it arrived and matches.
    ///
    /// **Lock handover.** While this request holds the upload, another request for it (a client
    /// resuming after its link died silently, here or on another server of a shared store) asks
    /// it to stop once no byte arrived for a second: `interrupt` is called, which must end
    /// `bytes` (a server closes the request's connection). What arrived is kept as for any
    /// request cut off, and the other request proceeds from the true offset. Without `interrupt`,
    /// this request is never asked and others wait for it as for a live writer.
    /// - Throws: ``Error/upload(_:)`` (`notFound`, `expired`, `offsetMismatch`, `busy`,
    ///   `exceedsLength`, `checksumMismatch`); what `bytes` throws; the errors of adding.
    public func appendToUpload<Bytes: AsyncSequence>(
        _ id: UploadID, at offset: Int64, bytes: Bytes, checksum: UploadChecksum? = nil,
        interrupt: (@Sendable () -> Void)? = nil
    ) async throws -> ResumableUpload where Bytes.Element: DataProtocol {
        let current = try await resumableUpload(id)
        guard current.attachment == nil else {
            guard offset == current.length else { throw Error.upload(.offsetMismatch(expected: current.length, given: offset)) }
            return current
        }
        let holder = UploadHolders.Holder(interrupt: interrupt)
        let writer = try await lockUpload(id, holder: holder)
        uploadHolders.register(holder, for: id)
        return try await releasing(writer, held: (id, holder)) {
            let start = try await writer.offset()
            guard start == offset else { throw Error.upload(.offsetMismatch(expected: start, given: offset)) }
            let received = try await writer.append(HeldUploadBytes(base: bytes, holder: holder), at: start,
                                                   length: current.length, checksum: checksum)
            guard start + received == current.length else { return try await resumableUpload(id) }
            var complete = current
            complete.offset = current.length
            return try await finish(id, upload: complete, writer: writer)
        }
    }

    /// Adds the attachment of an upload whose every byte has arrived, then drops its bytes;
    /// a finished upload answers with the attachment it became. Safe to call again after a
    /// crash at any instant: the attachment's identifier was chosen when the upload was created,
    /// so it is added once.
    /// - Throws: ``Error/upload(_:)`` (`notFound`, `expired`, `busy`, or `offsetMismatch` when
    ///   bytes are missing); ``Error/noteNotFound(_:)`` when the note was deleted meanwhile.
    @discardableResult
    public func finishUpload(_ id: UploadID) async throws -> ResumableUpload {
        let upload = try await resumableUpload(id)
        guard upload.attachment == nil else { return upload }
        guard upload.isComplete else { throw Error.upload(.offsetMismatch(expected: upload.offset, given: upload.length)) }
        let writer = try await lockUpload(id, holder: nil)
        return try await releasing(writer) { try await finish(id, upload: upload, writer: writer) }
    }

    /// Cancels an upload (tus termination): its bytes and description are removed.
    /// - Throws: ``Error/upload(_:)`` (`notFound`, `busy`).
    public func cancelUpload(_ id: UploadID) async throws {
        let staging = uploadStaging
        guard try await staging.progress(of: id) != nil else { throw Error.upload(.notFound(id)) }
        switch try await lockUploadWaiting(id, holder: nil) {
        case .busy: throw Error.upload(.busy(id))
        // A finished upload has no writer to lock; its description goes alone.
        case .gone: try await staging.removeFinished(id)
        case .locked(let writer): try await releasing(writer) { try await writer.remove() }
        }
    }

    /// `gc`'s part: uploads past their expiry, and leftovers of a crash while creating one.
    func collectExpiredUploads(into report: inout GarbageReport) async throws {
        let (uploads, bytes) = try await uploadStaging.collectExpired(now: Date(), dryRun: report.dryRun)
        report.expiredUploads = uploads
        report.expiredUploadBytes = bytes
    }

    // MARK: - Writing

    /// How long a request waits for an upload's writer to fall idle (``UploadHolders/idleAfter``),
    /// or a writer on another server to answer and keep what it received, before the upload is
    /// busy (423).
    static let handoverPatience: Duration = .seconds(3)

    /// Takes the writer lock of an unfinished upload.
    private func lockUpload(_ id: UploadID, holder: UploadHolders.Holder?) async throws -> any UploadWriter {
        switch try await lockUploadWaiting(id, holder: holder) {
        case .locked(let writer): return writer
        case .gone: throw Error.upload(.notFound(id))
        case .busy: throw Error.upload(.busy(id))
        }
    }

    /// Runs `body` while holding `writer`, then releases it (and forgets the request holding it
    /// as the upload's writer), whether `body` returns or throws.
    private func releasing<T>(
        _ writer: any UploadWriter, held: (UploadID, UploadHolders.Holder)? = nil, _ body: () async throws -> T
    ) async throws -> T {
        let outcome: Result<T, any Swift.Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        if let (id, holder) = held { uploadHolders.unregister(holder, for: id) }
        await writer.release()
        return try outcome.get()
    }

    /// How long a writer this process stopped may take to keep what it received and let go.
    static let handoverGrace: Duration = .seconds(10)

    /// Takes an upload's writer lock, waiting up to ``handoverPatience`` while another request holds it:
    /// a holder in this process whose bytes stopped arriving is asked to stop
    /// (``UploadHolders``) and then given ``handoverGrace`` to let go, a holder elsewhere is asked
    /// through the staging, and a live one is waited for. A lock held by no writer at all also
    /// passes: a process starting a program holds copies of our descriptors (and so a folder
    /// upload's lock) for the instant between its fork and its exec.
    private func lockUploadWaiting(_ id: UploadID, holder: UploadHolders.Holder?) async throws -> UploadLock {
        let staging = uploadStaging
        let clock = ContinuousClock()
        var deadline = clock.now + Self.handoverPatience
        var askedElsewhere = false
        var stopped = false
        while true {
            let lock = try await staging.lock(id, holder: holder)
            guard case .busy = lock else { return lock }
            if let current = uploadHolders.holder(of: id) {
                if !stopped, current.stopIfIdle() {
                    stopped = true
                    deadline = clock.now + Self.handoverGrace
                }
            } else if !askedElsewhere {
                try await staging.requestHandover(id)
                askedElsewhere = true
            }
            guard clock.now < deadline else { return .busy }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Adds the attachment of a complete upload whose writer the caller holds, then drops the
    /// upload's bytes.
    private func finish(_ id: UploadID, upload: ResumableUpload, writer: any UploadWriter) async throws -> ResumableUpload {
        guard let progress = try await uploadStaging.progress(of: id) else { throw Error.upload(.notFound(id)) }
        let description = progress.description
        let attachmentID = AttachmentID(rawValue: description.attachment)
        do {
            _ = try await attachment(attachmentID)
        } catch Error.attachmentNotFound {
            let whole = try await writer.assembled()
            do {
                let blob = try await ingest(.file(URL(filePath: whole.path), progress: nil))
                _ = prefetchingThumbnail(try await insertAttachment(
                    blob, note: upload.note, filename: description.filename, metadata: description.attachmentMetadata, id: attachmentID))
            } catch {
                await whole.discard()
                throw error
            }
            await whole.discard()
        }
        try await writer.finish()
        var finished = upload
        finished.offset = upload.length
        finished.attachment = attachmentID
        return finished
    }
}
