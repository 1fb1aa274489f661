import Foundation

/// Something in a store's trash: a note (with the attachments it holds) or one attachment moved
/// there on its own. It stays restorable, on every peer, until it is purged: by
/// ``AttachmentStore/emptyTrash(trashedBefore:)``, or once it is older than
/// ``AttachmentStore/Configuration/trashRetention``.
public struct TrashItem: Sendable, Equatable, Codable, Identifiable {
    /// What kind of record an item is.
    public enum Kind: String, Sendable, Codable {
        /// A note, with its attachments.
        case note
        /// One attachment, taken out of its note.
        case attachment
    }

    /// The note's or the attachment's identifier: what ``AttachmentStore/restoreFromTrash(_:)`` takes.
    public var id: String
    /// A note or an attachment.
    public var kind: Kind
    /// The note itself, or the note the attachment belongs to.
    public var noteID: NoteID
    /// The note's title, or the attachment's file name.
    public var title: String
    /// When it was moved to the trash (by the clock of the device that moved it).
    public var trashedAt: Date
    /// When it is purged at the latest: ``trashedAt`` plus the store's trash retention.
    public var purgeAt: Date
    /// The attachments it holds: a note's own (not those in the trash on their own), or 1.
    public var attachmentCount: Int
    /// Their bytes.
    public var byteCount: Int64
    /// An attachment's media type; `nil` for a note.
    public var mediaType: String?

    /// Creates an item value.
    public init(id: String, kind: Kind, noteID: NoteID, title: String, trashedAt: Date, purgeAt: Date,
                attachmentCount: Int, byteCount: Int64, mediaType: String? = nil) {
        self.id = id
        self.kind = kind
        self.noteID = noteID
        self.title = title
        self.trashedAt = trashedAt
        self.purgeAt = purgeAt
        self.attachmentCount = attachmentCount
        self.byteCount = byteCount
        self.mediaType = mediaType
    }
}

/// What a purge of the trash deleted for good.
public struct TrashPurgeReport: Sendable, Equatable, Codable {
    /// Notes purged, with their attachments.
    public var notes = 0
    /// Attachments purged on their own.
    public var attachments = 0

    /// An empty report.
    public init() {}
}
