import AttachmentStore
import Foundation
import Hummingbird

/// A note as the JSON API shows it.
struct NoteResource: ResponseCodable, Equatable {
    var id: String
    var title: String
    var body: String
    var createdAt: Date
    var updatedAt: Date
    /// Where the note lives in the API.
    var url: String

    init(_ note: Note) {
        id = note.id.rawValue
        title = note.title
        body = note.body
        createdAt = note.createdAt
        updatedAt = note.updatedAt
        url = "/api/notes/\(note.id.rawValue)"
    }
}

/// One page of notes.
struct NotePage: ResponseCodable {
    var notes: [NoteResource]
    var limit: Int
    var offset: Int
    /// The query of the next page, or `nil` when this one was not full.
    var next: String?
}

/// The body of `POST /api/notes`.
struct NoteCreation: JSONObjectBody {
    var title: String?
    var body: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case title, body }
}

/// The body of `PATCH /api/notes/{id}`: fields left out stay as they are.
struct NoteChange: JSONObjectBody {
    var title: String?
    var body: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case title, body }
}
