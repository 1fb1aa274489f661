import CatalogSQL

/// The new rows a peer's page adds — notes, blob records, attachment records — held back and
/// written several to a statement (`SQLUpsertBatch`), in an order the catalog's foreign keys
/// accept: notes, then blobs, then the attachments that name them.
///
/// Only records the page's `SyncBatchLookups` found absent are held, each key once. Whoever
/// applies the page calls ``write(in:)`` before anything reads or changes a row that may be
/// held (a merge, a deletion, a second change of the same record) and at the page's end.
struct SyncPageWrites {
    private var notes = SQLUpsertBatch(NoteRecord.columns)
    private var blobs = SQLUpsertBatch(BlobRecord.columns)
    private var attachments = SQLUpsertBatch(AttachmentRecord.columns)

    /// Holds a note new to this store.
    mutating func add(_ note: NoteRecord, in db: any SQLTransaction) throws {
        notes.append(note)
        if notes.isFull { try write(in: db) }
    }

    /// Holds a blob record new to this store.
    mutating func add(_ blob: BlobRecord, in db: any SQLTransaction) throws {
        blobs.append(blob)
        if blobs.isFull { try write(in: db) }
    }

    /// Holds an attachment record new to this store.
    mutating func add(_ attachment: AttachmentRecord, in db: any SQLTransaction) throws {
        attachments.append(attachment)
        if attachments.isFull { try write(in: db) }
    }

    /// Writes every held row: notes, then blobs, then attachments.
    mutating func write(in db: any SQLTransaction) throws {
        try notes.write(in: db)
        try blobs.write(in: db)
        try attachments.write(in: db)
    }
}
