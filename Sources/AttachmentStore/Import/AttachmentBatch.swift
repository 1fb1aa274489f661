import Foundation
import Synchronization

/// New attachments for one note, committed together (group commit).
///
/// Each ``add(bytes:filename:)`` or ``add(filesAt:progress:)`` copies bytes into the store's
/// `tmp/` and hashes them as they arrive, without syncing; ``commit()`` then makes them all
/// durable with shared flushes and adds them in one catalog transaction, in the order they were
/// added — all of them or, if the commit fails, none. ``discard()`` deletes the copies. The
/// server stores a multipart upload's files this way; `attach import` copies one batch while the
/// previous one commits. Where originals are uploaded to an object store before their
/// transaction, ``commit()`` commits the files one by one.
///
/// Make one per upload or import, use it from one task at a time, and end it with
/// ``commit()`` or ``discard()``.
public final class AttachmentBatch: Sendable {
    /// The note that gets the attachments.
    public let note: NoteID
    private let store: AttachmentStore
    /// Every file added, in order: staged, or why it could not be.
    private let entries = Mutex<[Result<StagedAttachment, AttachmentStore.Error>]>([])

    init(store: AttachmentStore, note: NoteID) {
        self.store = store
        self.note = note
    }

    /// How many files were added (staged or failed) and wait for ``commit()``.
    public var count: Int { entries.withLock { $0.count } }

    /// Stages bytes that arrive as an asynchronous sequence of chunks (memory stays bounded by
    /// one chunk of about 1 MiB). Nothing is referenced until ``commit()``.
    /// - Throws: ``AttachmentStore/Error/invalidArgument(_:)`` for a `filename` that breaks
    ///   ``RecordRules`` (before any byte is read), what `bytes` throws,
    ///   ``AttachmentStore/Error/writeFailed(path:cause:)``, or `CancellationError`; nothing of
    ///   this file is kept, the batch keeps what it staged before.
    public func add<Bytes: AsyncSequence>(bytes: Bytes, filename: String) async throws where Bytes.Element: DataProtocol {
        let name = try RecordRules.filename(given: filename)
        let blob = try await store.ingest(bytes: bytes, syncing: store.backend.uploadsBeforeCommit)
        entries.withLock { $0.append(.success(StagedAttachment(filename: name, blob: blob))) }
    }

    /// Stages files in parallel (one per core), each keeping its own name (mended by
    /// ``RecordRules/filename(fromFileSystem:)``); a file that cannot be read is kept as its
    /// failure, which ``commit()`` reports in its place.
    /// - Parameters:
    ///   - urls: the files, each a regular file (or a link to one).
    ///   - progress: called from background threads with a file's index in `urls` and the bytes
    ///     of it copied so far.
    /// - Throws: `CancellationError`; nothing of these files is kept.
    public func add(filesAt urls: [URL], progress: (@Sendable (_ file: Int, _ bytesCopied: Int64) -> Void)? = nil) async throws {
        let staged = try await store.stageInParallel(urls, progress: progress)
        let added = zip(urls, staged).map { url, result in
            result.map { StagedAttachment(filename: RecordRules.filename(fromFileSystem: url.lastPathComponent), blob: $0) }
        }
        entries.withLock { $0 += added }
    }

    /// Adds every staged file to the end of the note, in the order added, and empties the batch.
    /// - Returns: one outcome per file added, in order: its attachment, or why it was not added
    ///   (a file that could not be read; with an object store, a file whose commit failed).
    /// - Throws: ``AttachmentStore/Error/noteNotFound(_:)``, or the flush's or transaction's
    ///   failure — then none was added.
    public func commit() async throws -> [Result<Attachment, AttachmentStore.Error>] {
        let batch = take()
        let committed: Result<[Result<Attachment, AttachmentStore.Error>], any Error>
        do {
            committed = .success(try await store.commit(batch, to: note))
        } catch {
            committed = .failure(error)
        }
        await store.release(batch)
        return try committed.get()
    }

    /// Deletes every staged copy; nothing is added.
    public func discard() async {
        await store.release(take())
    }

    private func take() -> [Result<StagedAttachment, AttachmentStore.Error>] {
        entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
    }
}
