import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension AttachmentStore {
    /// How long an upload that receives nothing is kept: one day.
    public static let defaultUploadLifetime: Duration = .seconds(24 * 3600)

    private var uploadFolder: UploadFolder { UploadFolder(path: layout.uploadsPath) }

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
    /// - Throws: ``Error/invalidArgument(_:)`` for a file name that breaks ``RecordRules``;
    ///   ``Error/noteNotFound(_:)``; ``Error/upload(_:)`` with
    ///   ``ResumableUploadError/invalidLength(_:)``; ``Error/writeFailed(path:cause:)``.
    public func createUpload(
        for note: NoteID, filename: String, length: Int64, metadata: [String: String] = [:],
        attachmentMetadata: [String: String] = [:], lifetime: Duration = defaultUploadLifetime
    ) async throws -> ResumableUpload {
        guard length > 0 else { throw Error.upload(.invalidLength(length)) }
        let filename = try RecordRules.filename(given: filename)
        guard try await catalog.read({ db in try NoteRecord.isLive(note.rawValue, in: db) }) else {
            throw Error.noteNotFound(note.rawValue)
        }
        let id = UploadID.make()
        let info = UploadFolder.Info(
            note: note.rawValue, filename: filename, length: length, metadata: metadata,
            attachmentMetadata: attachmentMetadata, createdAt: Date(),
            lifetimeSeconds: Double(lifetime.components.seconds), attachment: AttachmentID.make().rawValue)
        try await onUploadFolder { folder in try folder.create(id, info: info) }
        return Self.upload(id, info, offset: 0, modified: info.createdAt, finished: false)
    }

    /// Where an upload stands: its offset, and the attachment it became once finished.
    /// - Throws: ``Error/upload(_:)`` with ``ResumableUploadError/notFound(_:)`` or
    ///   ``ResumableUploadError/expired(_:)``.
    public func resumableUpload(_ id: UploadID) async throws -> ResumableUpload {
        let found = try await onUploadFolder { folder -> (UploadFolder.Info, part: (size: Int64, modified: Date)?)? in
            guard let info = try folder.info(id) else { return nil }
            return (info, try folder.part(id))
        }
        guard let (info, part) = found else { throw Error.upload(.notFound(id)) }
        let upload = Self.upload(id, info, offset: part?.size ?? info.length, modified: part?.modified, finished: part == nil)
        guard upload.expiresAt > Date() || upload.attachment != nil else { throw Error.upload(.expired(id)) }
        return upload
    }

    /// Appends the bytes of one request to an upload that holds exactly `offset` bytes, makes
    /// them durable, and — when they were the last — adds the attachment (see
    /// ``finishUpload(_:)``).
    ///
    /// If `bytes` throws midway (the connection dropped), what arrived is kept and durable, so
    /// the client continues from there; with a `checksum`, nothing of this request counts unless
    /// all of it arrived and matches.
    /// - Throws: ``Error/upload(_:)`` (`notFound`, `expired`, `offsetMismatch`, `busy`,
    ///   `exceedsLength`, `checksumMismatch`); what `bytes` throws; the errors of adding.
    public func appendToUpload<Bytes: AsyncSequence>(
        _ id: UploadID, at offset: Int64, bytes: Bytes, checksum: UploadChecksum? = nil
    ) async throws -> ResumableUpload where Bytes.Element: DataProtocol {
        let current = try await resumableUpload(id)
        guard current.attachment == nil else {
            guard offset == current.length else { throw Error.upload(.offsetMismatch(expected: current.length, given: offset)) }
            return current
        }
        let part = try await lockPart(id)
        defer { close(part) }
        let start = try await onUploadFolder { _ in try POSIXFile.size(part) }
        guard start == offset else { throw Error.upload(.offsetMismatch(expected: start, given: offset)) }
        let received = try await receive(bytes, into: part, at: start, limit: current.length, checksum: checksum)
        guard start + received == current.length else { return try await resumableUpload(id) }
        var complete = current
        complete.offset = current.length
        return try await finishLocked(id, upload: complete)
    }

    /// Adds the attachment of an upload whose every byte has arrived, then drops its part;
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
        let part = try await lockPart(id)
        defer { close(part) }
        return try await finishLocked(id, upload: upload)
    }

    /// Cancels an upload (tus termination): its bytes and description are removed.
    /// - Throws: ``Error/upload(_:)`` (`notFound`, `busy`).
    public func cancelUpload(_ id: UploadID) async throws {
        guard try await onUploadFolder({ folder in try folder.info(id) != nil }) else { throw Error.upload(.notFound(id)) }
        // A finished upload has no part left to lock; its description goes alone.
        switch try await lockPartWaiting(id) {
        case .busy: throw Error.upload(.busy(id))
        case .gone: try await onUploadFolder { folder in try folder.removeAll(id) }
        case .locked(let fd):
            defer { close(fd) }
            try await onUploadFolder { folder in try folder.removeAll(id) }
        }
    }

    /// `gc`'s part: uploads past their expiry, and leftovers of a crash while creating one.
    func collectExpiredUploads(into report: inout GarbageReport) async throws {
        let dryRun = report.dryRun
        let (uploads, bytes) = try await onUploadFolder { folder in try folder.collectExpired(now: Date(), dryRun: dryRun) }
        report.expiredUploads = uploads
        report.expiredUploadBytes = bytes
    }

    // MARK: - Parts

    /// The upload as a value, from its description and its part's state.
    private static func upload(_ id: UploadID, _ info: UploadFolder.Info, offset: Int64, modified: Date?, finished: Bool) -> ResumableUpload {
        let lastActivity = max(info.createdAt, modified ?? info.createdAt)
        return ResumableUpload(
            id: id, note: NoteID(rawValue: info.note), filename: info.filename, length: info.length, offset: offset,
            metadata: info.metadata, createdAt: info.createdAt,
            expiresAt: lastActivity.addingTimeInterval(info.lifetimeSeconds),
            attachment: finished ? AttachmentID(rawValue: info.attachment) : nil)
    }

    /// Runs blocking work on the uploads folder; a failed system call is a write failure there.
    private func onUploadFolder<T: Sendable>(_ body: @escaping @Sendable (UploadFolder) throws -> T) async throws -> T {
        let folder = uploadFolder
        return try await BlockingPool.run {
            do {
                return try body(folder)
            } catch let error as SystemError {
                throw Error.writeFailed(path: folder.path, cause: .system(error))
            }
        }
    }

    /// Locks the part of an unfinished upload for writing; the caller closes the descriptor.
    private func lockPart(_ id: UploadID) async throws -> Int32 {
        switch try await lockPartWaiting(id) {
        case .locked(let fd): return fd
        case .gone: throw Error.upload(.notFound(id))
        case .busy: throw Error.upload(.busy(id))
        }
    }

    /// Tries to lock an upload's part; a lock held elsewhere is asked for again for up to half a
    /// second before the upload counts as busy — a process starting a program holds copies of
    /// our descriptors (and so our lock) for the instant between its fork and its exec, which is
    /// no writer.
    private func lockPartWaiting(_ id: UploadID) async throws -> PartLock {
        for _ in 0..<25 {
            let lock = try await onUploadFolder { folder in try folder.lockPartIfPresent(id) }
            guard case .busy = lock else { return lock }
            try await Task.sleep(for: .milliseconds(20))
        }
        return .busy
    }

    /// Writes `bytes` into the locked part from `start` on, in pieces of about 1 MiB, and syncs;
    /// returns how many bytes now count. See ``appendToUpload(_:at:bytes:checksum:)``.
    private func receive<Bytes: AsyncSequence>(
        _ bytes: Bytes, into part: Int32, at start: Int64, limit: Int64, checksum: UploadChecksum?
    ) async throws -> Int64 where Bytes.Element: DataProtocol {
        var written: Int64 = 0
        var pending: [UInt8] = []
        pending.reserveCapacity(BlobStore.chunkSize)
        var hasher = SHA256()
        /// Writes what is pending at the end of what was written.
        func flush() async throws {
            guard !pending.isEmpty else { return }
            let piece = pending, at = start + written
            pending.removeAll(keepingCapacity: true)
            try await onUploadFolder { _ in try POSIXFile.writeAll(part, piece, at: at) }
            written += Int64(piece.count)
        }
        /// Makes the part end at `start + kept` and durable.
        func settle(keeping kept: Int64) async throws {
            try await onUploadFolder { _ in
                try POSIXFile.truncate(part, to: start + kept)
                try POSIXFile.sync(part)
            }
        }
        do {
            for try await chunk in bytes {
                guard start + written + Int64(pending.count) + Int64(chunk.count) <= limit else {
                    throw Error.upload(.exceedsLength(limit))
                }
                if checksum != nil { chunk.withContiguousStorageIfAvailable { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) } ?? hasher.update(data: Array(chunk)) }
                pending.append(contentsOf: chunk)
                if pending.count >= BlobStore.chunkSize { try await flush() }
            }
        } catch {
            // Cut off: without a checksum what arrived counts (that is what resuming is for);
            // with one, or when the client sent too much, none of this request does.
            let keep = checksum == nil && !(error is Error)
            if keep { try await flush() }
            try await settle(keeping: keep ? written : 0)
            throw error
        }
        if let checksum, Array(hasher.finalize()) != checksum.sha256 {
            try await settle(keeping: 0)
            throw Error.upload(.checksumMismatch)
        }
        try await flush()
        try await settle(keeping: written)
        return written
    }

    /// Adds the attachment of a complete upload whose part the caller has locked, then drops
    /// the part.
    private func finishLocked(_ id: UploadID, upload: ResumableUpload) async throws -> ResumableUpload {
        guard let info = try await onUploadFolder({ folder in try folder.info(id) }) else {
            throw Error.upload(.notFound(id))
        }
        let attachmentID = AttachmentID(rawValue: info.attachment)
        do {
            _ = try await attachment(attachmentID)
        } catch Error.attachmentNotFound {
            let blob = try await ingest(.file(URL(filePath: uploadFolder.partPath(id)), progress: nil))
            _ = prefetchingThumbnail(try await insertAttachment(
                blob, note: upload.note, filename: info.filename, metadata: info.attachmentMetadata, id: attachmentID))
        }
        try await onUploadFolder { folder in try folder.removePart(id) }
        var finished = upload
        finished.offset = upload.length
        finished.attachment = attachmentID
        return finished
    }
}
