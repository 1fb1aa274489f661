import Foundation

/// The identifier of a resumable upload: a lowercase UUID string without dashes, so it is
/// also a safe file name.
public struct UploadID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier as stored and shown.
    public let rawValue: String

    /// Checks `rawValue` (32 lowercase hex digits); `nil` for anything else, so an identifier
    /// from a request can never name a path outside the uploads folder.
    public init?(rawValue: String) {
        guard rawValue.utf8.count == 32, rawValue.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A new, random identifier.
    public static func make() -> UploadID {
        UploadID(rawValue: UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))!
    }

    public var description: String { rawValue }
}

/// An upload whose bytes arrive in any number of requests, each continuing where the last
/// stopped — what the tus protocol calls an upload resource.
///
/// The store keeps its bytes so far and what it is for on disk (`uploads/`), made durable
/// before each request is answered, so neither a dropped connection nor a restart loses a
/// received byte. When the last byte arrives it becomes an attachment of its note through the
/// same ingest as every other upload (sniffing, deduplication, thumbnails).
public struct ResumableUpload: Sendable, Equatable {
    /// Its identifier.
    public var id: UploadID
    /// The note the finished file is added to.
    public var note: NoteID
    /// The name the attachment gets.
    public var filename: String
    /// The whole file's size, declared when the upload was created.
    public var length: Int64
    /// How many bytes the store holds so far: where the next request must continue.
    public var offset: Int64
    /// What the client sent along at creation (tus `Upload-Metadata`), returned as it was.
    public var metadata: [String: String]
    /// When the upload was created.
    public var createdAt: Date
    /// When it is abandoned: `lifetime` after it was created or last received bytes. `gc`
    /// removes an upload past this date.
    public var expiresAt: Date
    /// The attachment it became, once finished.
    public var attachment: AttachmentID?

    /// Whether every byte has arrived.
    public var isComplete: Bool { offset == length }
}

/// A checksum a client sends with a piece of an upload (tus `Upload-Checksum`), checked over
/// exactly the bytes of that request before they count.
public struct UploadChecksum: Sendable, Equatable {
    /// The SHA-256 digest the bytes must have.
    public var sha256: [UInt8]

    /// A SHA-256 digest of 32 bytes.
    public init?(sha256: [UInt8]) {
        guard sha256.count == 32 else { return nil }
        self.sha256 = sha256
    }
}
