import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a resumable upload is for, fixed when it is created: kept whole (as JSON) wherever the
/// store keeps its uploads (``UploadStaging``), and given back unchanged.
struct UploadDescription: Codable, Sendable {
    /// The note the finished file is added to.
    var note: String
    /// The attachment's name.
    var filename: String
    /// The whole file's size in bytes.
    var length: Int64
    /// What the client sent along at creation.
    var metadata: [String: String]
    /// What the attachment's own metadata will be.
    var attachmentMetadata: [String: String]
    /// When the upload was created.
    var createdAt: Date
    /// How long the upload is kept after it last received bytes.
    var lifetimeSeconds: Double
    /// The attachment the upload becomes, chosen at creation so that finishing twice (after
    /// a crash between adding it and dropping the bytes) adds it once.
    var attachment: String

    /// When an upload last active at `lastActivity` is abandoned.
    func expiry(lastActivity: Date) -> Date {
        max(createdAt, lastActivity).addingTimeInterval(lifetimeSeconds)
    }

    /// The upload as the store's callers see it.
    func upload(_ id: UploadID, offset: Int64, lastActivity: Date?, finished: Bool) -> ResumableUpload {
        ResumableUpload(
            id: id, note: NoteID(rawValue: note), filename: filename, length: length, offset: finished ? length : offset,
            metadata: metadata, createdAt: createdAt, expiresAt: expiry(lastActivity: lastActivity ?? createdAt),
            attachment: finished ? AttachmentID(rawValue: attachment) : nil)
    }

    /// The JSON kept for it.
    func encoded() throws(SystemError) -> Data {
        do {
            return try Self.encoder.encode(self)
        } catch {
            throw SystemError("encode an upload description: \(error)", code: EINVAL)
        }
    }

    /// Reads the JSON kept for an upload; `source` names where it was for the message.
    static func decode(_ data: Data, source: String) throws(SystemError) -> UploadDescription {
        do {
            return try decoder.decode(UploadDescription.self, from: data)
        } catch {
            throw SystemError("read \(source): it is not an upload description (\(error))", code: EIO)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
