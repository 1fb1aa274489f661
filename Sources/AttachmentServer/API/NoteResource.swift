import AttachmentStore
import Foundation
import Hummingbird

/// A note as the JSON API shows it: the ``Note`` itself (its fields read through it:
/// `resource.title`) and its address. The JSON keys are the API's contract (`openapi.yaml`) and
/// are written here once, by ``CodingKeys``; the id is the note's UUID as text.
@dynamicMemberLookup
struct NoteResource: ResponseCodable, Equatable {
    /// The note.
    let note: Note

    init(_ note: Note) {
        self.note = note
    }

    /// The note's id as the API writes it.
    var id: String { note.id.rawValue }
    /// Where the note lives in the API.
    var url: String { "/api/notes/\(note.id.rawValue)" }

    /// The note's own fields.
    subscript<Value>(dynamicMember field: KeyPath<Note, Value>) -> Value { note[keyPath: field] }

    private enum CodingKeys: String, CodingKey { case id, title, body, createdAt, updatedAt, url }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(note.title, forKey: .title)
        try container.encode(note.body, forKey: .body)
        try container.encode(note.createdAt, forKey: .createdAt)
        try container.encode(note.updatedAt, forKey: .updatedAt)
        try container.encode(url, forKey: .url)
    }

    /// Writes the API's JSON object, its keys in sorted order: the text ``encode(to:)`` gives
    /// through `JSONEncoder` with the API's settings (`JSONTextTests` hold the two to one text),
    /// without the encoder's tree of values (a page of notes through `JSONEncoder` had taken a
    /// quarter of a server's time answering it, `perf record`, 2026-11-28).
    func write(into json: inout JSONText) {
        json.openObject()
        json.key("body"); json.string(note.body)
        json.key("createdAt"); json.date(note.createdAt)
        json.key("id"); json.string(id)
        json.key("title"); json.string(note.title)
        json.key("updatedAt"); json.date(note.updatedAt)
        json.key("url"); json.string(url)
        json.closeObject()
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        note = Note(id: NoteID(rawValue: try container.decode(String.self, forKey: .id)),
                    title: try container.decode(String.self, forKey: .title), body: try container.decode(String.self, forKey: .body),
                    createdAt: try container.decode(Date.self, forKey: .createdAt),
                    updatedAt: try container.decode(Date.self, forKey: .updatedAt))
    }
}

/// One page of notes.
struct NotePage: ResponseGenerator, Codable {
    var notes: [NoteResource]
    var limit: Int
    var offset: Int
    /// The query of the next page, or `nil` when this one was not full.
    var next: String?

    /// `{"limit":…,"next":…,"notes":[…],"offset":…}`, `next` left out when `nil`: the text of
    /// the synthesized ``encode(to:)`` through the API's `JSONEncoder`.
    var jsonText: JSONText {
        var json = JSONText(capacity: 512 * max(1, notes.count))
        json.openObject()
        json.key("limit"); json.integer(limit)
        if let next { json.key("next"); json.string(next) }
        json.key("notes")
        json.openArray()
        for note in notes { note.write(into: &json) }
        json.closeArray()
        json.key("offset"); json.integer(offset)
        json.closeObject()
        return json
    }

    /// A 200 with the JSON object.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONText.response(jsonText)
    }
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
