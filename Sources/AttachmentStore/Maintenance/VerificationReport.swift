/// What `verify` found: every blob re-hashed, every reference checked.
public struct VerificationReport: Sendable, Codable, Equatable {
    /// A damaged blob and what it breaks.
    public struct Damage: Sendable, Codable, Equatable {
        /// How the blob is damaged.
        public enum Kind: String, Sendable, Codable {
            /// The file is gone.
            case missing
            /// The bytes no longer hash to the blob's name.
            case hashMismatch
            /// The file's size differs from the catalog's.
            case sizeMismatch
            /// The file exists but cannot be read.
            case unreadable
            /// A scrub found it damaged and quarantined it; it waits for a copy from a peer.
            case quarantined
        }

        /// An attachment that can no longer be read correctly.
        public struct BrokenAttachment: Sendable, Codable, Equatable {
            /// The attachment.
            public var id: AttachmentID
            /// Its note.
            public var noteID: NoteID
            /// Its file name.
            public var filename: String
        }

        /// How the blob is damaged.
        public var kind: Kind
        /// The blob's name.
        public var hash: BlobHash
        /// Details (the hash actually found, the sizes, the error).
        public var detail: String
        /// Attachments whose bytes this blob was.
        public var brokenAttachments: [BrokenAttachment]
        /// Image-store keys whose bytes this blob was.
        public var brokenImageKeys: [String]
    }

    /// Blobs re-hashed.
    public var blobsChecked = 0
    /// Bytes re-hashed.
    public var bytesChecked: Int64 = 0
    /// Attachment records checked for a valid reference.
    public var attachmentsChecked = 0
    /// Damaged blobs, by hash.
    public var damage: [Damage] = []
    /// Problems in the catalog itself: what its database finds (integrity, foreign keys), and
    /// rows whose blob hash is not 64 lowercase hexadecimal digits (a tampered catalog).
    public var catalogProblems: [String] = []
    /// Where the statistics the catalog keeps disagree with a count of its records (a catalog
    /// edited around its triggers): a repair recounts them (``AttachmentStore/recountStatistics()``).
    public var miscountedFigures: [String] = []
    /// Blob files no catalog row references (left by a crash; `gc` removes them). Not damage.
    public var unreferencedFiles = 0
    /// Files in `tmp/` (in-flight ingests, or leftovers `gc` removes). Not damage.
    public var temporaryFiles = 0

    /// Whether nothing is damaged.
    public var isClean: Bool { damage.isEmpty && catalogProblems.isEmpty && miscountedFigures.isEmpty }
}
