import Foundation

/// A file attached to a note: a reference to a content-addressed blob plus what we know of it.
///
/// The bytes themselves live in the blob store; an attachment may exist before its bytes
/// do (it arrived by sync), or after they were dropped here: ``state`` says which.
public struct Attachment: Sendable, Equatable, Identifiable {
    /// Where an attachment's bytes are, from this store's point of view.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// The bytes are here and can be read at once.
        case present
        /// Only the record is here (it arrived by sync); the bytes are on a peer.
        case remote
        /// The bytes are on their way from a peer; ``Attachment/fetchedBytes`` says how far.
        case fetching
        /// The bytes were dropped here under the storage budget because a peer holds them;
        /// reading them fetches them again.
        case evicted
        /// The bytes failed a re-hash and are quarantined: never served, repaired from a peer
        /// or the object store that holds the same hash.
        case damaged
    }

    /// Whether an attachment's bytes can be read here without a transfer.
    public enum Availability: String, Sendable, Codable {
        /// The blob is stored locally and can be read.
        case local
        /// The bytes must be fetched from a peer first (remote, fetching, evicted or damaged).
        case remote
    }

    /// Picture facts for attachments that are images, videos or PDFs; `nil` otherwise.
    public struct ImageInfo: Sendable, Equatable, Codable {
        /// Stored width in pixels (a video's frame as stored).
        public var width: Int
        /// Stored height in pixels.
        public var height: Int
        /// EXIF orientation, 1...8 (1 when none); for a video, the turn its container asks for
        /// (6 for a quarter turn clockwise, 3, 8).
        public var orientation: Int
        /// A video's playing time in milliseconds; `nil` for a still, or a video that does not say.
        public var durationMilliseconds: Int?
        /// A document's pages; `nil` for anything but a PDF. Its width and height are then its
        /// first page's, in points (pixels at 72 dpi).
        public var pageCount: Int?
        /// An Android motion photo's clip: where its MP4 starts in the photo's own bytes (it runs
        /// to their end); `nil` for anything else. Read from the photo's XMP and checked at import.
        public var embeddedVideoOffset: Int?

        /// Creates an image-info value.
        public init(width: Int, height: Int, orientation: Int, durationMilliseconds: Int? = nil, pageCount: Int? = nil,
                    embeddedVideoOffset: Int? = nil) {
            self.embeddedVideoOffset = embeddedVideoOffset
            self.width = width
            self.height = height
            self.orientation = orientation
            self.durationMilliseconds = durationMilliseconds
            self.pageCount = pageCount
        }
    }

    /// The clip of a Live Photo, kept with its still as the attachment's second original: its
    /// bytes byte for byte, like the still's, in the same content-addressed store.
    public struct Motion: Sendable, Equatable, Codable {
        /// The SHA-256 of the clip's bytes.
        public var blobHash: BlobHash
        /// Size of the clip's bytes.
        public var byteCount: Int64
        /// Media type sniffed from the clip's bytes (`video/quicktime`).
        public var mediaType: String
        /// The file name it was imported under (display and export only; never used as a path
        /// until made safe).
        public var filename: String
        /// Its playing time in milliseconds, when known.
        public var durationMilliseconds: Int?
        /// Where the clip's bytes are (a peer's record brings it ``State/remote``; a peer's claim
        /// of this field is never read).
        public var state: State

        /// Creates a motion value.
        public init(blobHash: BlobHash, byteCount: Int64, mediaType: String, filename: String, durationMilliseconds: Int?, state: State) {
            self.blobHash = blobHash
            self.byteCount = byteCount
            self.mediaType = mediaType
            self.filename = filename
            self.durationMilliseconds = durationMilliseconds
            self.state = state
        }

        private enum CodingKeys: String, CodingKey { case blobHash, byteCount, mediaType, filename, durationMilliseconds, state }

        /// Reads a motion value; one without ``state`` (a peer's record) is ``State/remote``.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(blobHash: try container.decode(BlobHash.self, forKey: .blobHash),
                      byteCount: try container.decode(Int64.self, forKey: .byteCount),
                      mediaType: try container.decode(String.self, forKey: .mediaType),
                      filename: try container.decode(String.self, forKey: .filename),
                      durationMilliseconds: try container.decodeIfPresent(Int.self, forKey: .durationMilliseconds),
                      state: try container.decodeIfPresent(State.self, forKey: .state) ?? .remote)
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
    /// Width, height and orientation when it is an image, a video or a PDF the store can read,
    /// a video's playing time and a PDF's pages.
    public var image: ImageInfo?
    /// Caller-supplied string pairs (camera, caption, source ...).
    public var metadata: [String: String]
    /// When it was added.
    public var createdAt: Date
    /// When its data or metadata last changed.
    public var updatedAt: Date
    /// Where its bytes are.
    public var state: State
    /// While ``state`` is ``State/fetching``: the bytes received so far (kept across a cut
    /// transfer); `nil` otherwise.
    public var fetchedBytes: Int64?
    /// For the still of a Live Photo whose clip was imported with it (in either order, into the
    /// same note) or arrived with it by sync: the clip. `nil` for every other attachment.
    public var motion: Motion?
    /// The identifier a phone gave both halves of a Live Photo (`LivePhotoIdentifier` in Imaging), read
    /// from this attachment's bytes: by it the other half, added later to the same note, joins
    /// this attachment. `nil` for files that carry none.
    public var contentIdentifier: String?

    /// Whether it is a Live Photo: a still with its clip as a second original (``motion``).
    public var isLivePhoto: Bool { motion != nil }

    /// Whether it is a still with a clip to play: a Live Photo, or an Android motion photo
    /// whose clip is inside its own bytes (``ImageInfo/embeddedVideoOffset``).
    public var hasMotion: Bool { motion != nil || image?.embeddedVideoOffset != nil }

    /// Whether it is a video the store reads (MP4 or QuickTime): it has a poster for a
    /// thumbnail and a playable copy (``AttachmentStore/playableVideo(for:)``).
    public var isVideo: Bool { MediaTypeSniffer.isVideo(mediaType) }

    /// Whether its bytes can be read here without a transfer: ``Availability/local`` exactly
    /// when ``state`` is ``State/present``.
    public var availability: Availability { state == .present ? .local : .remote }

    /// Creates an attachment value.
    public init(
        id: AttachmentID, noteID: NoteID, position: Int, blobHash: BlobHash, byteCount: Int64,
        mediaType: String, filename: String, image: ImageInfo?, metadata: [String: String],
        createdAt: Date, updatedAt: Date, state: State, fetchedBytes: Int64? = nil, motion: Motion? = nil, contentIdentifier: String? = nil
    ) {
        self.motion = motion
        self.contentIdentifier = contentIdentifier
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
        self.state = state
        self.fetchedBytes = fetchedBytes
    }
}
