import Foundation

/// A note: a title, a body, and an ordered list of attachments kept alongside.
public struct Note: Sendable, Equatable, Identifiable {
    /// The note's stable identifier.
    public var id: NoteID
    /// A short title; may be empty.
    public var title: String
    /// Free text; may be empty.
    public var body: String
    /// When the note was created.
    public var createdAt: Date
    /// When the title or body last changed.
    public var updatedAt: Date

    /// Creates a note value.
    public init(id: NoteID, title: String, body: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
