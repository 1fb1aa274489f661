import CatalogSQL

/// What a list of notes shows of each note's attachments: how many it has and its first few.
public struct AttachmentPreview: Sendable, Equatable {
    /// The note's attachments, not counting those in the trash.
    public var count: Int
    /// Its first attachments in order (at most the number asked for), each reporting its rank.
    public var first: [Attachment]

    /// A preview of `count` attachments whose first are `first`.
    public init(count: Int, first: [Attachment]) {
        self.count = count
        self.first = first
    }
}

extension AttachmentStore {
    /// The attachment count and the first `first` attachments of each of `notes`, in two reads
    /// whatever the number of notes or of their attachments (a note of 2,000 photos costs what
    /// one of four does; more than 500 notes are read 500 at a time). A note without
    /// attachments, or not in the catalog, has an empty preview; `first` below 1 reads counts only.
    public func attachmentPreviews(of notes: [NoteID], first: Int = 4) async throws -> [NoteID: AttachmentPreview] {
        guard notes.count <= 500 else {
            var previews: [NoteID: AttachmentPreview] = [:]
            for start in stride(from: 0, to: notes.count, by: 500) {
                previews.merge(try await attachmentPreviews(of: Array(notes[start..<min(start + 500, notes.count)]), first: first)) { $1 }
            }
            return previews
        }
        let first = max(first, 0)
        guard !notes.isEmpty else { return [:] }
        let ids = notes.map(\.rawValue)
        return try await catalog.read { db in
            var previews = Dictionary(uniqueKeysWithValues: notes.map { ($0, AttachmentPreview(count: 0, first: [])) })
            for (note, count) in try AttachmentRecord.counts(inNotes: ids, in: db) {
                previews[NoteID(rawValue: note)]?.count = count
            }
            let rows = try AttachmentRow.firstOfEach(ids, first: first, in: db)
            for (note, group) in Dictionary(grouping: rows, by: { $0.attachment.noteId }) {
                previews[NoteID(rawValue: note)]?.first = try AttachmentRow.ranked(group)
            }
            return previews
        }
    }
}
