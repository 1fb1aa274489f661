import Foundation

/// A note's JSON form: `attach --json` output, the API, and a sync change
/// (``SyncChange/NoteState``: the same object with the change's own fields beside the note's).
extension Note: Codable {
    /// The key of each field; the JSON names are the property names.
    enum CodingKeys: String, CodingKey {
        case id, title, body, createdAt, updatedAt
        /// A sync change's fields, written beside the note's in the same object, so that a
        /// change is read through one container (each container JSONDecoder makes indexes the
        /// object's keys anew).
        case clock, trashedAt, versions
    }

    /// Reads a note.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder.container(keyedBy: CodingKeys.self))
    }

    /// Reads a note's fields from `container`, which may hold a sync change's fields too.
    init(from container: KeyedDecodingContainer<CodingKeys>) throws {
        self.init(id: try container.decode(NoteID.self, forKey: .id),
                  title: try container.decode(String.self, forKey: .title),
                  body: try container.decode(String.self, forKey: .body),
                  createdAt: try container.decode(Date.self, forKey: .createdAt),
                  updatedAt: try container.decode(Date.self, forKey: .updatedAt))
    }

    /// Writes the note's five fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}
