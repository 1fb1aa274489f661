import CatalogSQL
import Foundation

/// A row of the `attachment` table.
struct AttachmentRecord: Sendable {
    var id: String
    var noteId: String
    var position: Int
    var blobHash: String
    var mediaType: String
    var filename: String
    var width: Int?
    var height: Int?
    var orientation: Int?
    /// A video's playing time (``Attachment/ImageInfo/durationMilliseconds``).
    var durationMilliseconds: Int?
    /// A document's pages (``Attachment/ImageInfo/pageCount``).
    var pageCount: Int?
    /// A motion photo's clip's start (``Attachment/ImageInfo/embeddedVideoOffset``).
    var embeddedVideoOffset: Int?
    var metadata: [String: String]
    var createdAt: Date
    var updatedAt: Date
    /// When it last changed, by the clock of the peer that changed it (empty before sync existed).
    var clock: String = ""
    /// When it was moved to the trash on its own (not with its note); `nil` while it is not there.
    var trashedAt: Date?
    /// A Live Photo's clip (``Attachment/Motion``): its hash, type, name and playing time; all
    /// `nil` for any other attachment.
    var motionHash: String?
    var motionMediaType: String?
    var motionFilename: String?
    var motionDurationMilliseconds: Int?
    /// ``Attachment/contentIdentifier``.
    var contentIdentifier: String?

    init(id: String, noteId: String, position: Int, blobHash: String, mediaType: String, filename: String,
         image: Attachment.ImageInfo?, metadata: [String: String], createdAt: Date, updatedAt: Date, clock: String) {
        self.id = id
        self.noteId = noteId
        self.position = position
        self.blobHash = blobHash
        self.mediaType = mediaType
        self.filename = filename
        self.metadata = metadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.clock = clock
        self.image = image
    }

    /// The row of `attachment` as of `clock` (its byte count and state are the blob's row).
    init(_ attachment: Attachment, clock: ClockStamp) {
        self.init(
            id: attachment.id.rawValue, noteId: attachment.noteID.rawValue, position: attachment.position,
            blobHash: attachment.blobHash.rawValue, mediaType: attachment.mediaType, filename: attachment.filename,
            image: attachment.image, metadata: attachment.metadata, createdAt: attachment.createdAt, updatedAt: attachment.updatedAt, clock: clock.rawValue
        )
        record(motion: attachment.motion)
        self.contentIdentifier = attachment.contentIdentifier
    }

    /// The clip its four motion columns describe, its size and state read from the clip's blob
    /// row; `nil` unless the hash and type are set. The one place those columns meet
    /// ``Attachment/Motion``.
    func motion(byteCount: Int64?, state: BlobRecord.State?) throws(AttachmentStore.Error) -> Attachment.Motion? {
        guard let motionHash, let motionMediaType else { return nil }
        return Attachment.Motion(blobHash: try BlobHash(catalog: motionHash, table: "attachment", column: "motionHash", row: id),
                                 byteCount: byteCount ?? 0, mediaType: motionMediaType, filename: motionFilename ?? "",
                                 durationMilliseconds: motionDurationMilliseconds, state: state.map(Attachment.State.init) ?? .remote)
    }

    /// Sets (or, with `nil`, clears) the four motion columns.
    mutating func record(motion: Attachment.Motion?) {
        (motionHash, motionMediaType, motionFilename, motionDurationMilliseconds) =
            (motion?.blobHash.rawValue, motion?.mediaType, motion?.filename, motion?.durationMilliseconds)
    }

    /// The picture facts its six columns hold: `nil` unless width and height are set. The one
    /// place those columns meet ``Attachment/ImageInfo``.
    var image: Attachment.ImageInfo? {
        get {
            guard let width, let height else { return nil }
            return Attachment.ImageInfo(width: width, height: height, orientation: orientation ?? 1,
                                        durationMilliseconds: durationMilliseconds, pageCount: pageCount, embeddedVideoOffset: embeddedVideoOffset)
        }
        set {
            (width, height, orientation, durationMilliseconds, pageCount, embeddedVideoOffset) =
                (newValue?.width, newValue?.height, newValue?.orientation, newValue?.durationMilliseconds, newValue?.pageCount,
                 newValue?.embeddedVideoOffset)
        }
    }

    /// ``blobHash`` as a ``BlobHash``, the only way it becomes a path.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` for a malformed one.
    var validatedHash: BlobHash {
        get throws(AttachmentStore.Error) { try BlobHash(catalog: blobHash, table: "attachment", column: "blobHash", row: id) }
    }

    init(row: SQLRow) throws {
        id = try row.requiredString("id")
        noteId = try row.requiredString("noteId")
        position = Int(try row.requiredInt64("position"))
        blobHash = try row.requiredString("blobHash")
        mediaType = try row.requiredString("mediaType")
        filename = try row.requiredString("filename")
        width = try row.int("width")
        height = try row.int("height")
        orientation = try row.int("orientation")
        durationMilliseconds = try row.int("durationMilliseconds")
        pageCount = try row.int("pageCount")
        embeddedVideoOffset = try row.int("embeddedVideoOffset")
        metadata = try Self.metadata(try row.string("metadata") ?? "{}")
        createdAt = try row.requiredDate("createdAt")
        updatedAt = try row.requiredDate("updatedAt")
        clock = try row.string("clock") ?? ""
        trashedAt = try row.date("trashedAt")
        motionHash = try row.string("motionHash")
        motionMediaType = try row.string("motionMediaType")
        motionFilename = try row.string("motionFilename")
        motionDurationMilliseconds = try row.int("motionDurationMilliseconds")
        contentIdentifier = try row.string("contentIdentifier")
    }

    /// The metadata column's JSON object of strings; most attachments have none (`{}`), which
    /// is read without a decoder.
    static func metadata(_ json: String) throws(SQLDecodingError) -> [String: String] {
        if json == "{}" { return [:] }
        guard let metadata = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) else {
            throw SQLDecodingError(column: "metadata", reason: "holds \(json.prefix(40)), not a JSON object of strings")
        }
        return metadata
    }

    /// The metadata as a JSON object with sorted keys (so equal metadata is equal text); `{}`
    /// for none, written without an encoder.
    private static func json(_ metadata: [String: String]) -> String {
        guard !metadata.isEmpty else { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(metadata)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The columns a row is written with, and each one's value: the one list inserts and
    /// upserts are built from.
    static let columns = SQLColumns<AttachmentRecord>(table: "attachment", key: ["id"], [
        .init("id") { .text($0.id) },
        .init("noteId") { .text($0.noteId) },
        .init("position") { .integer(Int64($0.position)) },
        .init("blobHash") { .text($0.blobHash) },
        .init("mediaType") { .text($0.mediaType) },
        .init("filename") { .text($0.filename) },
        .init("width") { .integer($0.width) },
        .init("height") { .integer($0.height) },
        .init("orientation") { .integer($0.orientation) },
        .init("durationMilliseconds") { .integer($0.durationMilliseconds) },
        .init("pageCount") { .integer($0.pageCount) },
        .init("embeddedVideoOffset") { .integer($0.embeddedVideoOffset) },
        .init("metadata") { .text(json($0.metadata)) },
        .init("createdAt") { .date($0.createdAt) },
        .init("updatedAt") { .date($0.updatedAt) },
        .init("clock") { .text($0.clock) },
        .init("trashedAt") { $0.trashedAt.map(SQLValue.date) ?? .null },
        .init("motionHash") { $0.motionHash.map(SQLValue.text) ?? .null },
        .init("motionMediaType") { $0.motionMediaType.map(SQLValue.text) ?? .null },
        .init("motionFilename") { $0.motionFilename.map(SQLValue.text) ?? .null },
        .init("motionDurationMilliseconds") { .integer($0.motionDurationMilliseconds) },
        .init("contentIdentifier") { $0.contentIdentifier.map(SQLValue.text) ?? .null },
    ])

    /// Inserts the row.
    func insert(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.insert, Self.columns.arguments(of: self))
    }

    /// Inserts the row, or replaces every field of the row with its id.
    func save(_ db: any SQLTransaction) throws {
        try db.execute(Self.columns.upsert, Self.columns.arguments(of: self))
    }

    /// Writes every field of the existing row with this id.
    func update(_ db: any SQLTransaction) throws { try save(db) }
}

/// An attachment row joined with its blob's size and state: everything ``Attachment`` needs.
struct AttachmentRow: Sendable {
    var attachment: AttachmentRecord
    var byteCount: Int64
    var state: BlobRecord.State
    /// A Live Photo's clip's size and state, from its blob row; `nil` for other attachments.
    var motionByteCount: Int64?
    var motionState: BlobRecord.State?

    init(attachment: AttachmentRecord, byteCount: Int64, state: BlobRecord.State,
         motionByteCount: Int64? = nil, motionState: BlobRecord.State? = nil) {
        self.attachment = attachment
        self.byteCount = byteCount
        self.state = state
        self.motionByteCount = motionByteCount
        self.motionState = motionState
    }

    init(row: SQLRow) throws {
        attachment = try AttachmentRecord(row: row)
        byteCount = try row.requiredInt64("blobByteCount")
        state = BlobRecord.State(rawValue: try row.requiredString("blobState")) ?? .remote
        motionByteCount = try row.int64("motionByteCount")
        motionState = try row.string("motionState").map { BlobRecord.State(rawValue: $0) ?? .remote }
    }

    /// The public values of `rows`, in order, each reporting its rank in its note as its
    /// position: rows of one note must be consecutive and in order, the first of a note at
    /// `firstRank` (0 unless the rows are a later page of one note).
    static func ranked(_ rows: [AttachmentRow], firstRank: Int = 0) throws(AttachmentStore.Error) -> [Attachment] {
        var values: [Attachment] = []
        var rank = firstRank
        for (index, row) in rows.enumerated() {
            if index > 0 && rows[index - 1].attachment.noteId != row.attachment.noteId { rank = 0 }
            var value = try row.value
            value.position = rank
            values.append(value)
            rank += 1
        }
        return values
    }

    /// The public value, reporting its stored position (the sync feed sends that; everything
    /// else reports the rank, see ``ranked(_:firstRank:)``).
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` when its blob hash is malformed.
    var value: Attachment {
        get throws(AttachmentStore.Error) { try makeValue() }
    }

    private func makeValue() throws(AttachmentStore.Error) -> Attachment {
        let record = attachment
        let image = record.image
        return Attachment(
            id: AttachmentID(rawValue: record.id), noteID: NoteID(rawValue: record.noteId),
            position: record.position, blobHash: try record.validatedHash,
            byteCount: byteCount, mediaType: record.mediaType, filename: record.filename,
            image: image, metadata: record.metadata, createdAt: record.createdAt,
            updatedAt: record.updatedAt, state: Attachment.State(state),
            motion: try record.motion(byteCount: motionByteCount, state: motionState), contentIdentifier: record.contentIdentifier
        )
    }
}

extension Attachment.State {
    /// The state an attachment reports for its blob's catalog state (``fetching`` is found on
    /// disk, by ``AttachmentStore``, not in the catalog).
    init(_ blob: BlobRecord.State) {
        switch blob {
        case .present: self = .present
        case .remote: self = .remote
        case .evicted: self = .evicted
        case .damaged: self = .damaged
        }
    }
}
