import Foundation

/// A note as the server describes it.
public struct RemoteNote: Codable, Sendable, Equatable, Identifiable {
    /// Its identifier (a UUID string).
    public var id: String
    /// Its title.
    public var title: String
    /// Its text.
    public var body: String
    /// When it was made.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
}

/// One page of notes, most recently changed first.
public struct RemoteNotePage: Codable, Sendable, Equatable {
    /// The notes of this page.
    public var notes: [RemoteNote]
    /// The query of the next page, or `nil` when this one was the last.
    public var next: String?
}

/// An attachment as the server describes it.
public struct RemoteAttachment: Codable, Sendable, Equatable, Identifiable {
    /// An image's or a video's pixel size and orientation, and a video's playing time.
    public struct Image: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var orientation: Int
        /// A video's playing time in milliseconds; `nil` for a still.
        public var durationMilliseconds: Int?
        /// A PDF's pages; `nil` otherwise.
        public var pageCount: Int?
    }

    /// Its identifier (a UUID string).
    public var id: String
    /// The note it belongs to.
    public var noteId: String
    /// Its place among the note's attachments (0 is first).
    public var position: Int
    /// Its file name.
    public var filename: String
    /// Its media type, sniffed from its bytes.
    public var mediaType: String
    /// The size of the original in bytes.
    public var byteCount: Int64
    /// `sha256:<hex>` of the original.
    public var hash: String
    /// For images, their size.
    public var image: Image?
    /// Where the bytes are: `present`, `remote`, `fetching`, `evicted` or `damaged`.
    public var state: String
    /// The address of the original.
    public var originalUrl: String
    /// The address of its thumbnails (add `&size=N`), for images.
    public var thumbnailUrl: String?
}

/// Something in the server's trash: a note (with its attachments) or one attachment, restorable
/// until `purgeAt`.
public struct RemoteTrashItem: Codable, Sendable, Equatable, Identifiable {
    /// The note's or the attachment's identifier.
    public var id: String
    /// `note` or `attachment`.
    public var kind: String
    /// The note itself, or the note the attachment belongs to.
    public var noteId: String
    /// The note's title or the attachment's file name.
    public var title: String
    /// When it was deleted.
    public var trashedAt: Date
    /// When it is purged at the latest.
    public var purgeAt: Date
    /// The attachments it holds.
    public var attachmentCount: Int
    /// Their bytes.
    public var byteCount: Int64
}

extension RemoteTrashItem {
    /// The generated schema type as the public value.
    init(_ item: Components.Schemas.TrashItem) {
        self.init(id: item.id, kind: item.kind.rawValue, noteId: item.noteId, title: item.title, trashedAt: item.trashedAt,
                  purgeAt: item.purgeAt, attachmentCount: item.attachmentCount, byteCount: Int64(item.byteCount))
    }
}

extension RemoteNote {
    /// The generated schema type as the public value.
    init(_ note: Components.Schemas.Note) {
        self.init(id: note.id, title: note.title, body: note.body, createdAt: note.createdAt, updatedAt: note.updatedAt)
    }
}

extension RemoteNotePage {
    init(_ page: Components.Schemas.NotePage) {
        self.init(notes: page.notes.map(RemoteNote.init), next: page.next)
    }
}

extension RemoteAttachment {
    /// The generated schema type as the public value.
    init(_ attachment: Components.Schemas.Attachment) {
        self.init(
            id: attachment.id, noteId: attachment.noteId, position: attachment.position, filename: attachment.filename,
            mediaType: attachment.mediaType, byteCount: Int64(attachment.byteCount), hash: attachment.hash,
            image: attachment.image.map { Image(width: $0.width ?? 0, height: $0.height ?? 0, orientation: $0.orientation ?? 1,
                                                durationMilliseconds: $0.durationMilliseconds, pageCount: $0.pageCount) },
            state: attachment.state.rawValue, originalUrl: attachment.originalUrl, thumbnailUrl: attachment.thumbnailUrl)
    }
}
