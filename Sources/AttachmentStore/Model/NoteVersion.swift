import Foundation

/// An earlier title and body of a note: what an edit replaced, kept so it can be read and
/// restored (``AttachmentStore/noteVersions(of:)``, ``AttachmentStore/restoreNoteVersion(_:version:)``).
public struct NoteVersion: Sendable, Equatable, Codable {
    /// The note it is a version of.
    public var noteID: NoteID
    /// Names this version among the note's: the clock stamp it had (it sorts in time order).
    public var version: String
    /// The title it had.
    public var title: String
    /// The body it had.
    public var body: String
    /// When it was written.
    public var updatedAt: Date

    /// Creates a version value.
    public init(noteID: NoteID, version: String, title: String, body: String, updatedAt: Date) {
        self.noteID = noteID
        self.version = version
        self.title = title
        self.body = body
        self.updatedAt = updatedAt
    }
}
