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

    /// A note as of a clock reading. On the wire it is the ``Note``'s own JSON plus `clock`
    /// (and `trashedAt` while it is in the trash).
    public struct NoteState: Sendable, Equatable, Codable {
        /// The note as the sending peer has it.
        public var note: Note
        /// When it last changed, by the hybrid logical clock of the peer that changed it.
        public var clock: ClockStamp
        /// When it was moved to the trash; `nil` while it is not there. Moving to the trash and
        /// restoring are edits like any other.
        public var trashedAt: Date?
        /// The edits this version includes, by peer: whether it replaces the receiver's version
        /// or is to be merged with it. `nil` from a peer of a release before version vectors (its
        /// clock alone decides, as then).
        public var versions: VersionVector?

        /// A change carrying `note` as of `clock`, in the trash since `trashedAt` when that is
        /// given, including the edits `versions` names.
        public init(_ note: Note, clock: ClockStamp, trashedAt: Date? = nil, versions: VersionVector? = nil) {
            self.note = note
            self.clock = clock
            self.trashedAt = trashedAt
            self.versions = versions
        }

        /// Reads a peer's note change: the note's fields, `clock`, `trashedAt` and `versions`
        /// side by side, through one container.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Note.CodingKeys.self)
            self.init(try Note(from: container), clock: try container.decode(ClockStamp.self, forKey: .clock),
                      trashedAt: try container.decodeIfPresent(Date.self, forKey: .trashedAt),
                      versions: try container.decodeIfPresent(VersionVector.self, forKey: .versions))
        }

        /// Writes the note, `clock`, `trashedAt` and `versions`, in one object.
        public func encode(to encoder: any Encoder) throws {
            try note.encode(to: encoder)
            var container = encoder.container(keyedBy: Note.CodingKeys.self)
            try container.encode(clock, forKey: .clock)
            try container.encodeIfPresent(trashedAt, forKey: .trashedAt)
            try container.encodeIfPresent(versions, forKey: .versions)
        }
    }

    /// An attachment record without its bytes: the blob's hash, size and type travel instead.
    ///
    /// On the wire it is the attachment's own JSON (``Attachment``'s coding) without the
    /// fields that say where the bytes are here, plus `clock` (and `trashedAt` while it is in
    /// the trash on its own).
    public struct AttachmentToken: Sendable, Equatable, Codable {
        /// The attachment as the sending peer has it. A received one is ``Attachment/State/remote``:
        /// where its bytes are is for the receiver to find out.
        public var attachment: Attachment
        /// When it last changed, by the hybrid logical clock of the peer that changed it.
        public var clock: ClockStamp
        /// When it was moved to the trash on its own (not with its note); `nil` while it is not there.
        public var trashedAt: Date?

        /// A change carrying `attachment` as of `clock`, in the trash since `trashedAt` when that is given.
        public init(_ attachment: Attachment, clock: ClockStamp, trashedAt: Date? = nil) {
            self.attachment = attachment
            self.attachment.state = .remote
            self.attachment.fetchedBytes = nil
            self.clock = clock
            self.trashedAt = trashedAt
        }

        /// Reads a peer's token: the attachment's fields, `clock` and `trashedAt` side by side,
        /// through one container.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Attachment.CodingKeys.self)
            self.init(try Attachment(from: container), clock: try container.decode(ClockStamp.self, forKey: .clock),
                      trashedAt: try container.decodeIfPresent(Date.self, forKey: .trashedAt))
        }

        /// Writes the attachment's description, `clock` and `trashedAt`, in one object.
        public func encode(to encoder: any Encoder) throws {
            try attachment.encodeDescription(to: encoder)
            var container = encoder.container(keyedBy: Attachment.CodingKeys.self)
            try container.encode(clock, forKey: .clock)
            try container.encodeIfPresent(trashedAt, forKey: .trashedAt)
        }
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

extension SyncChange {
    /// When the change was made, by the clock of the peer that made it.
    var clock: ClockStamp {
        switch self {
        case .note(let note): note.clock
        case .attachment(let token): token.clock
        case .tombstone(let tombstone): tombstone.clock
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
    /// Entries of a peer's batch that could not even be read as a change (an unknown kind, a
    /// malformed hash, a missing field), one line each saying why. Filled when a batch is
    /// decoded, never sent: one unreadable entry must not cost the whole batch.
    public var unreadable: [String] = []

    /// Creates a batch.
    public init(peerID: String, changes: [SyncChange], nextSequence: Int64, hasMore: Bool) {
        self.peerID = peerID
        self.changes = changes
        self.nextSequence = nextSequence
        self.hasMore = hasMore
    }

    private enum CodingKeys: String, CodingKey { case peerID, changes, nextSequence, hasMore }

    /// Reads a batch, keeping every entry that reads as a change and the reason for each that does not.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        peerID = try container.decode(String.self, forKey: .peerID)
        nextSequence = try container.decode(Int64.self, forKey: .nextSequence)
        hasMore = try container.decode(Bool.self, forKey: .hasMore)
        let entries = try container.decode([LenientChange].self, forKey: .changes)
        changes = entries.compactMap(\.change)
        unreadable = entries.compactMap(\.problem)
    }

    /// Writes the four wire fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peerID, forKey: .peerID)
        try container.encode(changes, forKey: .changes)
        try container.encode(nextSequence, forKey: .nextSequence)
        try container.encode(hasMore, forKey: .hasMore)
    }

    /// One entry of a batch: the change, or why it could not be read.
    private struct LenientChange: Decodable {
        let change: SyncChange?
        let problem: String?

        init(from decoder: any Decoder) {
            do {
                change = try SyncChange(from: decoder)
                problem = nil
            } catch {
                change = nil
                problem = Self.describe(error)
            }
        }

        /// `changes[3].attachment.blobHash: …`, short enough to log.
        static func describe(_ error: any Error) -> String {
            guard let error = error as? DecodingError else { return "unreadable change" }
            let (path, detail): ([any CodingKey], String)
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                (path, detail) = (context.codingPath, context.debugDescription)
            case .keyNotFound(let key, let context):
                (path, detail) = (context.codingPath + [key], "missing")
            @unknown default:
                return "unreadable change"
            }
            let name = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            // Both may carry the peer's own text (a metadata key, a value it sent).
            return "unreadable change \(PeerText.escaped(name, limit: 80)): \(PeerText.escaped(detail, limit: 120))"
        }
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
    /// Changes refused because they broke ``PeerInputLimits`` or could not be read; none of
    /// them touched the catalog or the clock.
    public var invalid = 0
    /// Why, for the first ``maxProblems`` refused changes.
    public var problems: [String] = []
    /// The attachments with a picture (images, videos) whose records these changes created or updated, with
    /// the content each names: the peer that sent them is the one asked for their thumbnails,
    /// of that content only. Not part of the JSON form.
    public var imagesApplied: [AttachmentID: BlobHash] = [:]

    private enum CodingKeys: String, CodingKey {
        case notesApplied, attachmentsApplied, deletionsApplied, ignored, newRemoteBlobs, invalid, problems
    }

    /// How many reasons a report keeps.
    public static let maxProblems = 20

    /// An empty report.
    public init() {}

    /// Counts a refused change and keeps its reason while there is room.
    mutating func refuse(_ problem: String) {
        invalid += 1
        if problems.count < Self.maxProblems { problems.append(problem) }
    }

    /// Adds `other`'s counts (and reasons, while there is room) to these.
    public mutating func add(_ other: SyncApplyReport) {
        notesApplied += other.notesApplied
        attachmentsApplied += other.attachmentsApplied
        deletionsApplied += other.deletionsApplied
        ignored += other.ignored
        newRemoteBlobs += other.newRemoteBlobs
        invalid += other.invalid
        problems += other.problems.prefix(max(0, Self.maxProblems - problems.count))
        imagesApplied.merge(other.imagesApplied) { _, newer in newer }
    }
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
