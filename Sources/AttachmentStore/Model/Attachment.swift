import Foundation

/// A file attached to a note: a reference to a content-addressed blob plus what we know of it.
///
/// The bytes themselves live in the blob store; an attachment may exist before its bytes
/// do (it arrived by sync), in which case ``availability`` is ``Availability/remote``.
public struct Attachment: Sendable, Equatable, Codable, Identifiable {
    /// Whether an attachment's bytes are on this machine.
    public enum Availability: String, Sendable, Codable {
        /// The blob is stored locally and can be read.
        case local
        /// Only the record is here; the bytes must be fetched from a peer first.
        case remote
    }

    /// Pixel facts for attachments that are images; `nil` otherwise.
    public struct ImageInfo: Sendable, Equatable, Codable {
        /// Stored width in pixels.
        public var width: Int
        /// Stored height in pixels.
        public var height: Int
        /// EXIF orientation, 1...8 (1 when none).
        public var orientation: Int

        /// Creates an image-info value.
        public init(width: Int, height: Int, orientation: Int) {
            self.width = width
            self.height = height
            self.orientation = orientation
        }
    }

    /// The attachment's stable identifier.
    public var id: AttachmentID
    /// The note it belongs to.
    public var noteID: NoteID
    /// Its place among the note's attachments, starting at 0.
    public var position: Int
    /// The SHA-256 of its bytes.
    public var blobHash: BlobHash
    /// Size of its bytes.
    public var byteCount: Int64
    /// Media type sniffed from the bytes (never taken from the file name or a client).
    public var mediaType: String
    /// The file name it was imported under (display only; never used as a path).
    public var filename: String
    /// Width, height and orientation when it is an image the store can read.
    public var image: ImageInfo?
    /// Caller-supplied string pairs (camera, caption, source ...).
    public var metadata: [String: String]
    /// When it was added.
    public var createdAt: Date
    /// When its data or metadata last changed.
    public var updatedAt: Date
    /// Whether its bytes are on this machine.
    public var availability: Availability

    /// Creates an attachment value.
    public init(
        id: AttachmentID, noteID: NoteID, position: Int, blobHash: BlobHash, byteCount: Int64,
        mediaType: String, filename: String, image: ImageInfo?, metadata: [String: String],
        createdAt: Date, updatedAt: Date, availability: Availability
    ) {
        self.id = id
        self.noteID = noteID
        self.position = position
        self.blobHash = blobHash
        self.byteCount = byteCount
        self.mediaType = mediaType
        self.filename = filename
        self.image = image
        self.metadata = metadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.availability = availability
    }
}
