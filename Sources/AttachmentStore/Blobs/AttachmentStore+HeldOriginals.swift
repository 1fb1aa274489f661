import CatalogSQL
import Foundation

/// Upload by hash: a client asks whether the store already holds a file's bytes before sending
/// them, and attaches bytes the store holds without sending them again. The store is
/// content-addressed, so a photo imported twice, or sent again after an app was reinstalled,
/// costs one small request instead of its megabytes.
extension AttachmentStore {
    /// Whether the store holds bytes hashing to `hash` here, as the original of an attachment
    /// (in the trash or not): bytes a client need not send. Originals known only as a peer's
    /// (not fetched, or evicted) do not count.
    public func holdsOriginal(_ hash: BlobHash) async throws -> Bool {
        try await catalog.read { db in try AttachmentRecord.heldOriginal(hash, in: db) != nil }
    }

    /// Adds an attachment at the end of `note` whose bytes the store already holds, named by their
    /// hash: nothing is sent, copied or written but the attachment's row. Its media type and
    /// image facts are those recorded for the bytes.
    /// - Parameters:
    ///   - note: the note the attachment goes at the end of; it must exist.
    ///   - hash: the SHA-256 of the bytes.
    ///   - filename: the attachment's name: its last `/` part, which must keep ``RecordRules``.
    ///   - metadata: the attachment's metadata (none by default).
    ///   - byteCount: when given, the size the client knows the file by; bytes of another size
    ///     are not the client's file (``Error/originalNotHeld(_:)``).
    ///   - id: the new attachment's identifier (a resumable upload chose it when it was created).
    /// - Throws: ``Error/originalNotHeld(_:)`` when the store does not hold those bytes;
    ///   ``Error/noteNotFound(_:)``; ``Error/invalidArgument(_:)`` for a file name that breaks
    ///   ``RecordRules``.
    public func addAttachment(
        to note: NoteID, holding hash: BlobHash, filename: String, metadata: [String: String] = [:],
        byteCount: Int64? = nil, id: AttachmentID = .make()
    ) async throws -> Attachment {
        let name = try RecordRules.filename(given: filename)
        return prefetchingThumbnail(try await catalog.write(locking: [.note(note), .blob(hash)]) { db in
            guard try NoteRecord.isLive(note.rawValue, in: db) else { throw Error.noteNotFound(note.rawValue) }
            // Found present in the transaction that references it: no gc removes it meanwhile.
            guard let facts = try AttachmentRecord.heldOriginal(hash, in: db), byteCount.map({ $0 == facts.byteCount }) ?? true else {
                throw Error.originalNotHeld(hash)
            }
            return try self.insertRecord(of: facts, note: note, filename: name, metadata: metadata, id: id,
                                         position: try AttachmentRecord.nextPosition(inNote: note.rawValue, in: db), in: db)
        })
    }
}
