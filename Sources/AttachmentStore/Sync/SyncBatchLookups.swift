import CatalogSQL

/// What the catalog holds of the records a peer's batch names — their tombstones, which of
/// their notes and attachments exist (and the attachments' clocks), their blobs' states — read
/// in a few queries before the batch is applied, and kept true as it applies. Applying a change
/// then asks these sets instead of the catalog: a first sync of thousands of new records makes
/// no query per change to learn that each is new.
struct SyncBatchLookups {
    private var tombstoned: Set<String>
    private var notes: Set<String>
    private var attachmentClocks: [String: String]
    private var blobStates: [String: BlobRecord.State]

    /// Reads what `db` holds of the records `changes` name.
    init(for changes: [SyncChange], in db: any SQLTransaction) throws {
        var noteIDs: Set<String> = []
        var attachmentIDs: Set<String> = []
        var hashes: Set<String> = []
        for change in changes {
            switch change {
            case .note(let state):
                noteIDs.insert(state.note.id.rawValue)
            case .attachment(let token):
                attachmentIDs.insert(token.attachment.id.rawValue)
                noteIDs.insert(token.attachment.noteID.rawValue)
                hashes.insert(token.attachment.blobHash.rawValue)
                if let motion = token.attachment.motion { hashes.insert(motion.blobHash.rawValue) }
            case .tombstone(let tombstone):
                if tombstone.entity == "note" { noteIDs.insert(tombstone.id) }
                if tombstone.entity == "attachment" { attachmentIDs.insert(tombstone.id) }
            }
        }
        let notes = Array(noteIDs), attachments = Array(attachmentIDs)
        tombstoned = Set(try TombstoneRecord.clocks(entity: "note", ids: notes, in: db).keys.map { Self.key("note", $0) })
            .union(try TombstoneRecord.clocks(entity: "attachment", ids: attachments, in: db).keys.map { Self.key("attachment", $0) })
        self.notes = try NoteRecord.existing(ids: notes, in: db)
        attachmentClocks = try AttachmentRecord.clocks(ids: attachments, in: db)
        blobStates = try BlobRecord.states(of: Array(hashes), in: db)
    }

    private static func key(_ entity: String, _ id: String) -> String { entity + " " + id }

    /// Whether the record of `entity` `id` was deleted here (before or earlier in the batch).
    func isTombstoned(_ entity: String, _ id: String) -> Bool { tombstoned.contains(Self.key(entity, id)) }

    /// Whether the note `id` exists here now.
    func noteExists(_ id: String) -> Bool { notes.contains(id) }

    /// The clock of the attachment `id` here now, if it exists.
    func attachmentClock(_ id: String) -> String? { attachmentClocks[id] }

    /// The state of the blob `hash` here now, if it has a row.
    func blobState(_ hash: String) -> BlobRecord.State? { blobStates[hash] }

    /// Records that the record of `entity` `id` was deleted and its tombstone kept.
    mutating func deleted(_ entity: String, _ id: String) {
        tombstoned.insert(Self.key(entity, id))
        if entity == "note" { notes.remove(id) }
        if entity == "attachment" { attachmentClocks[id] = nil }
    }

    /// Records that the note `id` was written.
    mutating func noteWritten(_ id: String) { notes.insert(id) }

    /// Records that the attachment `id` was written as of `clock`.
    mutating func attachmentWritten(_ id: String, clock: String) { attachmentClocks[id] = clock }

    /// Records that the blob `hash` got a row in `state`.
    mutating func blobWritten(_ hash: String, state: BlobRecord.State) { blobStates[hash] = state }
}
