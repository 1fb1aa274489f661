import Foundation
import Synchronization

/// New attachments for one note, committed together (group commit).
///
/// Each ``add(bytes:filename:)`` copies its bytes into the store's `tmp/` and hashes them as
/// they arrive, without syncing; ``commit()`` then makes them all durable with shared flushes
/// and adds them in one catalog transaction, in the order they were added — all of them or,
/// if the commit fails, none. ``discard()`` (or dropping the batch) deletes the copies. The
/// server stores a multipart upload's files this way. Where originals are uploaded to an object
/// store before their transaction, ``commit()`` commits them one by one.
///
/// Make one per upload or import and use it from one task at a time.
public final class AttachmentBatch: Sendable {
    /// The note that gets the attachments.
    public let note: NoteID
    private let store: AttachmentStore
    private let staged = Mutex<[StagedAttachment]>([])

    init(store: AttachmentStore, note: NoteID) {
        self.store = store
        self.note = note
    }

    /// How many files are staged and waiting for ``commit()``.
    public var count: Int { staged.withLock { $0.count } }

    /// Stages bytes that arrive as an asynchronous sequence of chunks (memory stays bounded by
    /// one chunk of about 1 MiB). Nothing is referenced until ``commit()``.
    /// - Throws: what `bytes` throws, ``AttachmentStore/Error/writeFailed(path:cause:)``, or
    ///   `CancellationError`; the batch keeps what it staged before.
    public func add<Bytes: AsyncSequence>(bytes: Bytes, filename: String) async throws where Bytes.Element: DataProtocol {
        let blob = try await store.ingest(bytes: bytes, syncing: store.backend.uploadsBeforeCommit)
        staged.withLock { $0.append(StagedAttachment(filename: filename, blob: blob)) }
    }

    /// Adds every staged file to the end of the note, in order, and empties the batch.
    /// - Returns: the new attachments.
    /// - Throws: ``AttachmentStore/Error/noteNotFound(_:)``, or the flush's or transaction's
    ///   failure — then none was added (with an object store, the first file that failed; those
    ///   before it were added).
    public func commit() async throws -> [Attachment] {
        let batch = staged.withLock { staged in
            defer { staged.removeAll() }
            return staged
        }
        let committed: Result<[Result<Attachment, AttachmentStore.Error>], any Error>
        do {
            committed = .success(try await store.commit(batch, to: note))
        } catch {
            committed = .failure(error)
        }
        await store.release(batch)
        return try committed.get().map { try $0.get() }
    }

    /// Deletes every staged copy; nothing is added.
    public func discard() async {
        let batch = staged.withLock { staged in
            defer { staged.removeAll() }
            return staged
        }
        await store.release(batch)
    }
}
