import Foundation

/// One entry of a store's change feed: the current state of a note or an attachment record,
/// or the tombstone of a deleted one. Attachment records are tokens: everything about the
/// attachment except its bytes.
public enum SyncChange: Sendable, Equatable {
    /// A note as it is now.
    case note(NoteState)
    /// An attachment record as it is now (its bytes stay where they are).
    case attachment(AttachmentToken)
    /// A note or an attachment that was deleted.
    case tombstone(Tombstone)

    /// A note's synchronised fields.
    public struct NoteState: Sendable, Equatable, Codable {
        public var id: NoteID
        public var title: String
        public var body: String
        public var createdAt: Date
        public var updatedAt: Date
        /// When it last changed, by the hybrid logical clock of the peer that changed it.
        public var clock: ClockStamp
    }

    /// An attachment record without its bytes: the blob's hash, size and type travel instead.
    public struct AttachmentToken: Sendable, Equatable, Codable {
        public var id: AttachmentID
        public var noteID: NoteID
        public var position: Int
        public var blobHash: BlobHash
        public var byteCount: Int64
        public var mediaType: String
        public var filename: String
        public var image: Attachment.ImageInfo?
        public var metadata: [String: String]
        public var createdAt: Date
        public var updatedAt: Date
        public var clock: ClockStamp
    }

    /// Proof of a deletion; deletions win over any concurrent edit.
    public struct Tombstone: Sendable, Equatable, Codable {
        /// `note` or `attachment`.
        public var entity: String
        public var id: String
        public var clock: ClockStamp
    }
}

extension SyncChange: Codable {
    private enum Keys: String, CodingKey { case kind, note, attachment, tombstone }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "note": self = .note(try container.decode(NoteState.self, forKey: .note))
        case "attachment": self = .attachment(try container.decode(AttachmentToken.self, forKey: .attachment))
        case "tombstone": self = .tombstone(try container.decode(Tombstone.self, forKey: .tombstone))
        case let kind: throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "unknown change kind \(kind)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .note(let note):
            try container.encode("note", forKey: .kind)
            try container.encode(note, forKey: .note)
        case .attachment(let token):
            try container.encode("attachment", forKey: .kind)
            try container.encode(token, forKey: .attachment)
        case .tombstone(let tombstone):
            try container.encode("tombstone", forKey: .kind)
            try container.encode(tombstone, forKey: .tombstone)
        }
    }
}

/// A page of a store's change feed, in sequence order.
public struct SyncBatch: Sendable, Equatable, Codable {
    /// The peer that served it.
    public var peerID: String
    /// Changes after the requested sequence number, oldest first.
    public var changes: [SyncChange]
    /// The sequence number to ask from next time (the last change's, or the one asked for).
    public var nextSequence: Int64
    /// Whether more changes follow.
    public var hasMore: Bool

    /// Creates a batch.
    public init(peerID: String, changes: [SyncChange], nextSequence: Int64, hasMore: Bool) {
        self.peerID = peerID
        self.changes = changes
        self.nextSequence = nextSequence
        self.hasMore = hasMore
    }
}

/// What applying a batch did.
public struct SyncApplyReport: Sendable, Equatable, Codable {
    /// Notes created or updated because the peer's version was newer.
    public var notesApplied = 0
    /// Attachment records created or updated.
    public var attachmentsApplied = 0
    /// Deletions carried out.
    public var deletionsApplied = 0
    /// Changes already known or older than what is here.
    public var ignored = 0
    /// Blobs now known here only as records (their bytes are on a peer).
    public var newRemoteBlobs = 0

    /// An empty report.
    public init() {}
}

extension SyncBatch {
    /// The wire form of a batch, shared by the server and the client: JSON with dates as
    /// milliseconds since 1970 (exact to the millisecond, no time-zone parsing).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads the wire form written by ``jsonData()``.
    public init(jsonData: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        self = try decoder.decode(SyncBatch.self, from: jsonData)
    }
}
