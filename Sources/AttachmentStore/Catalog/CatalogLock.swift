import CatalogSQL

/// What a keyed catalog write (``Catalog/write(locking:_:)``) changes, and so what it waits for.
///
/// The contract: a transaction that locks `.note(id)` may change that note's row, its
/// attachments and their tombstones; one that locks `.blob(hash)` may change that blob's row,
/// its bytes in the catalog and its leases; one that locks `.upload(id)` may change that
/// resumable upload's row and parts. Anything else (deleting blobs, moving attachments
/// between notes, applying a peer's changes, settings) is a plain ``Catalog/write(_:)``, which
/// no keyed write overlaps. On SQLite every write is one at a time anyway; on PostgreSQL
/// writers of different keys run side by side, on every server sharing the catalog.
enum CatalogLock: Hashable, Sendable {
    /// A note's row and its attachments.
    case note(NoteID)
    /// A blob's row, its bytes kept in the catalog, and its leases.
    case blob(BlobHash)
    /// A resumable upload's row, its writer lease and its parts (``ResumableUploadRecord``).
    case upload(UploadID)

    /// The key ``SQLDatabase/write(locking:_:)`` locks.
    var key: String {
        switch self {
        case .note(let id): "note:\(id.rawValue)"
        case .blob(let hash): "blob:\(hash.rawValue)"
        case .upload(let id): "upload:\(id.rawValue)"
        }
    }
}
