import Foundation

/// An attachment's JSON form, written once for every place it travels: `attach --json` output
/// (all fields) and a sync change (``SyncChange/AttachmentToken``: the same fields without
/// ``Attachment/state`` and ``Attachment/fetchedBytes``, which say where the bytes are on this
/// machine and mean nothing to a peer).
extension Attachment: Codable {
    /// The key of each field; the JSON names are the property names.
    enum CodingKeys: String, CodingKey {
        case id, noteID, position, blobHash, byteCount, mediaType, filename, image, metadata, createdAt, updatedAt
        case motion, contentIdentifier
        case state, fetchedBytes
        /// A sync change's fields, written beside the attachment's in the same object
        /// (``SyncChange/AttachmentToken``), so that a change is read through one container.
        case clock, trashedAt
    }

    /// Reads an attachment; one without ``state`` (a peer's record) is ``State/remote``.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder.container(keyedBy: CodingKeys.self))
    }

    /// Reads an attachment's fields from `container`, which may hold a sync change's fields too.
    init(from container: KeyedDecodingContainer<CodingKeys>) throws {
        self.init(
            id: try container.decode(AttachmentID.self, forKey: .id),
            noteID: try container.decode(NoteID.self, forKey: .noteID),
            position: try container.decode(Int.self, forKey: .position),
            blobHash: try container.decode(BlobHash.self, forKey: .blobHash),
            byteCount: try container.decode(Int64.self, forKey: .byteCount),
            mediaType: try container.decode(String.self, forKey: .mediaType),
            filename: try container.decode(String.self, forKey: .filename),
            image: try container.decodeIfPresent(ImageInfo.self, forKey: .image),
            metadata: try container.decode([String: String].self, forKey: .metadata),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            updatedAt: try container.decode(Date.self, forKey: .updatedAt),
            state: try container.decodeIfPresent(State.self, forKey: .state) ?? .remote,
            fetchedBytes: try container.decodeIfPresent(Int64.self, forKey: .fetchedBytes),
            motion: try container.decodeIfPresent(Motion.self, forKey: .motion),
            contentIdentifier: try container.decodeIfPresent(String.self, forKey: .contentIdentifier)
        )
    }

    /// Writes every field.
    public func encode(to encoder: any Encoder) throws {
        try encodeDescription(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(fetchedBytes, forKey: .fetchedBytes)
    }

    /// Writes what describes the attachment wherever it is: every field but ``state`` and
    /// ``fetchedBytes``.
    func encodeDescription(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(noteID, forKey: .noteID)
        try container.encode(position, forKey: .position)
        try container.encode(blobHash, forKey: .blobHash)
        try container.encode(byteCount, forKey: .byteCount)
        try container.encode(mediaType, forKey: .mediaType)
        try container.encode(filename, forKey: .filename)
        try container.encodeIfPresent(image, forKey: .image)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(motion, forKey: .motion)
        try container.encodeIfPresent(contentIdentifier, forKey: .contentIdentifier)
    }
}
