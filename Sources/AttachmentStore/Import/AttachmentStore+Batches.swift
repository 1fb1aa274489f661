import CatalogSQL
import Foundation

extension AttachmentStore {
    /// How many files of a batch are read and hashed at once: one per core (at most 8).
    static var batchStagingWidth: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Adds many files to the end of a note's attachments, in the order given, with group commit.
    ///
    /// The files are copied into the store and hashed in parallel (one per core); then the whole
    /// batch is made durable with as few flushes as correctness needs — one `syncfs` for all the
    /// copies, one for all their renames into `blobs/`, one catalog transaction that references
    /// them all — where ``addAttachment(to:fromFile:filename:metadata:progress:)`` flushes three
    /// times per file. When this returns, every attachment it reports is durable; a crash before
    /// that leaves none of the batch referenced, only files `gc` removes. A file that cannot be
    /// read fails alone; the others are added. Where originals are uploaded before their
    /// transaction (an object store), each file is committed on its own after the parallel copy.
    ///
    /// Use batches of tens of files, not thousands: the copies wait in `tmp/` until the batch
    /// commits, and nothing of the batch is acknowledged before it does. To copy the next batch
    /// while this one commits, use ``AttachmentBatch`` (`attach import` does).
    /// - Parameters:
    ///   - note: the note that gets the attachments.
    ///   - urls: the files, each a regular file (or a link to one); each keeps its own name.
    ///   - progress: called from background threads with a file's index in `urls` and the
    ///     bytes of it copied so far.
    /// - Returns: for each file, in order, its new attachment or why it was not added
    ///   (``Error/sourceUnreadable(path:cause:)``, ``Error/sourceNotAFile(path:)``).
    /// - Throws: ``Error/noteNotFound(_:)``, or ``Error/writeFailed(path:cause:)`` and catalog
    ///   errors when the batch could not be committed — then none of it was added.
    public func addAttachments(
        to note: NoteID, fromFiles urls: [URL], progress: (@Sendable (_ file: Int, _ bytesCopied: Int64) -> Void)? = nil
    ) async throws -> [Result<Attachment, Error>] {
        let batch = batch(addingTo: note)
        do {
            try await batch.add(filesAt: urls, progress: progress)
        } catch {
            await batch.discard()
            throw error
        }
        return try await batch.commit()
    }

    /// Starts a batch of new attachments for `note`, committed together (see ``AttachmentBatch``).
    public func batch(addingTo note: NoteID) -> AttachmentBatch {
        AttachmentBatch(store: self, note: note)
    }

    /// Commits a batch's entries to the end of `note`, in order; an entry that failed to stage
    /// keeps its failure. Group commit, or one by one where each original is uploaded before its
    /// transaction (each failure that file's own).
    /// - Throws: ``Error/noteNotFound(_:)``, and what a group commit's flushes or transaction throw.
    func commit(_ entries: [Result<StagedAttachment, Error>], to note: NoteID) async throws -> [Result<Attachment, Error>] {
        let batch = entries.compactMap { try? $0.get() }
        var outcomes = try await commit(batch, to: note)[...]
        // One outcome per entry, in order.
        return entries.map { entry in entry.flatMap { _ in outcomes.removeFirst() } }
    }

    /// Commits staged files to the end of `note`, in order.
    private func commit(_ batch: [StagedAttachment], to note: NoteID) async throws -> [Result<Attachment, Error>] {
        guard !batch.isEmpty else { return [] }
        guard !backend.uploadsBeforeCommit else {
            var outcomes: [Result<Attachment, Error>] = []
            for item in batch {
                do {
                    outcomes.append(.success(try await insertAttachment(item.blob, note: note, filename: item.filename, metadata: [:])))
                } catch let error as Error {
                    if case .noteNotFound = error { throw error }
                    outcomes.append(.failure(error))
                }
            }
            return outcomes.map { $0.map(prefetchingThumbnail) }
        }
        // The group commit: every copy made durable by one flush, then one transaction that
        // installs them all (one more flush for the renames) and adds their attachments.
        let files = self.blobs
        try await BlockingPool.run { try files.makeDurable(batch.map(\.blob.staged)) }
        let locks = [CatalogLock.note(note)] + batch.map { .blob($0.blob.staged.hash) }
        let attachments = try await catalog.write(locking: locks) { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            _ = try self.backend.install(batch: batch.map(\.blob.staged), in: db)
            let first = try AttachmentRecord.nextPosition(inNote: note.rawValue, in: db)
            return try batch.enumerated().map { offset, item in
                try BlobRecord.markPresent(item.blob.staged.hash, byteCount: item.blob.staged.byteCount, in: db)
                return try self.insertRecord(for: item.blob, note: note, filename: item.filename, metadata: [:], id: .make(),
                                             position: first + offset, in: db)
            }
        }
        return attachments.map { .success(prefetchingThumbnail($0)) }
    }

    /// Deletes the staged copies of a batch (those a commit has not consumed).
    func release(_ entries: [Result<StagedAttachment, Error>]) async {
        let staged = entries.compactMap { try? $0.get().blob.staged }
        try? await BlockingPool.run { staged.forEach { $0.release() } }
    }

    /// Copies and hashes `urls` into `tmp/`, at most ``batchStagingWidth`` at once; each file's
    /// own failure in its slot. Other errors (cancellation) end the whole batch, nothing kept.
    func stageInParallel(
        _ urls: [URL], progress: (@Sendable (Int, Int64) -> Void)?
    ) async throws -> [Result<IngestedBlob, Error>] {
        // The group commit syncs every copy at once; an object store's local copies are synced
        // one by one, as its one-at-a-time commits expect.
        let syncing = backend.uploadsBeforeCommit
        return try await withThrowingTaskGroup(of: (Int, Result<IngestedBlob, Error>).self) { group in
            var results = [Result<IngestedBlob, Error>?](repeating: nil, count: urls.count)
            var next = 0
            func startNext() {
                guard next < urls.count else { return }
                let index = next, url = urls[next]
                next += 1
                group.addTask {
                    do {
                        let report = progress.map { report in { @Sendable (copied: Int64) in report(index, copied) } }
                        return (index, .success(try await self.ingest(.file(url, syncing: syncing, progress: report))))
                    } catch let error as Error {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<Self.batchStagingWidth { startNext() }
            do {
                while let (index, result) = try await group.next() {
                    results[index] = result
                    startNext()
                }
            } catch {
                let done = results.compactMap { try? $0?.get() }
                try? await BlockingPool.run { done.forEach { $0.staged.release() } }
                throw error
            }
            return results.map { $0! }
        }
    }
}

/// A staged file waiting for its batch's commit, with the name its attachment gets.
struct StagedAttachment: Sendable {
    let filename: String
    let blob: IngestedBlob
}
