import AttachmentStore
import Foundation
import HTTPTypes
import Hummingbird

/// The headers of the tus 1.0 resumable upload protocol (https://tus.io/protocols/resumable-upload),
/// read and written in one place: which version and extensions this server speaks, and the
/// parsing of `Upload-Length`, `Upload-Offset`, `Upload-Metadata` and `Upload-Checksum`, each
/// refused with a 400 naming the header when it is not what the protocol allows.
enum TusProtocol {
    /// The one protocol version spoken.
    static let version = "1.0.0"
    /// The extensions implemented.
    static let extensions = "creation,termination,checksum,expiration"
    /// The checksum algorithms accepted in `Upload-Checksum`.
    static let checksumAlgorithms = "sha256"
    /// The media type of a `PATCH` body.
    static let patchMediaType = "application/offset+octet-stream"
    /// The largest `Upload-Metadata` header accepted.
    static let maxMetadataBytes = 4096

    static let tusResumable = HTTPField.Name("Tus-Resumable")!
    static let tusVersion = HTTPField.Name("Tus-Version")!
    static let tusExtension = HTTPField.Name("Tus-Extension")!
    static let tusMaxSize = HTTPField.Name("Tus-Max-Size")!
    static let tusChecksumAlgorithm = HTTPField.Name("Tus-Checksum-Algorithm")!
    static let uploadLength = HTTPField.Name("Upload-Length")!
    static let uploadDeferLength = HTTPField.Name("Upload-Defer-Length")!
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    static let uploadMetadata = HTTPField.Name("Upload-Metadata")!
    static let uploadExpires = HTTPField.Name("Upload-Expires")!
    static let uploadChecksum = HTTPField.Name("Upload-Checksum")!
    /// Ours: on a finished upload, the attachment it became.
    static let attachmentID = HTTPField.Name("Attachment-Id")!

    /// Refuses a request that does not say it speaks our version, naming the version we do
    /// (`Tus-Version`): another version (`MAJOR.MINOR.PATCH`) is 412, as tus requires; no
    /// `Tus-Resumable`, or one that is no version at all, is a malformed request (400).
    static func requireVersion(_ request: Request) throws {
        guard let given = request.headers[tusResumable] else {
            throw ServerError(.badRequest, code: "tus_version_required",
                              message: "send Tus-Resumable: \(version), the tus version this server speaks",
                              headers: [tusVersion: version])
        }
        guard given == version else {
            let parts = given.split(separator: ".", omittingEmptySubsequences: false)
            let isVersion = parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }
            throw ServerError(isVersion ? .preconditionFailed : .badRequest,
                              code: isVersion ? "tus_version_unsupported" : "tus_version_invalid",
                              message: "send Tus-Resumable: \(version), the tus version this server speaks",
                              headers: [tusVersion: version])
        }
    }

    /// A non-negative byte count from `name`.
    static func byteCount(_ name: HTTPField.Name, in request: Request) throws -> Int64? {
        guard let text = request.headers[name] else { return nil }
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(text) else {
            throw ServerError.badRequest("\(name) must be a whole number of bytes, not \(text.prefix(40))", code: "invalid_tus_header")
        }
        return value
    }

    /// Where the bytes of a `PATCH` go (its `Upload-Offset`), once its body is known to be
    /// `application/offset+octet-stream`: a tus upload's and a pushed original's alike.
    /// - Throws: 415 for another body type, 400 `upload_offset_required` without the offset.
    static func patchOffset(of request: Request) throws -> Int64 {
        guard request.headers[.contentType].map({ HeaderParameters($0).value }) == patchMediaType else {
            throw ServerError.unsupportedMediaType("send the bytes as \(patchMediaType)")
        }
        guard let offset = try byteCount(uploadOffset, in: request) else {
            throw ServerError.badRequest("send Upload-Offset, where these bytes go (ask with HEAD)", code: "upload_offset_required")
        }
        return offset
    }

    /// `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be left out).
    static func metadata(of request: Request) throws -> [String: String] {
        guard let header = request.headers[uploadMetadata], !header.isEmpty else { return [:] }
        guard header.utf8.count <= maxMetadataBytes else {
            throw ServerError.badRequest("Upload-Metadata may be at most \(maxMetadataBytes) bytes", code: "invalid_tus_header")
        }
        var pairs: [String: String] = [:]
        for item in header.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard (1...2).contains(parts.count), let key = parts.first, !key.isEmpty, pairs[String(key)] == nil else {
                throw ServerError.badRequest("Upload-Metadata must be comma-separated `key base64value` pairs, each key once", code: "invalid_tus_header")
            }
            if parts.count == 1 {
                pairs[String(key)] = ""
                continue
            }
            guard let bytes = Data(base64Encoded: String(parts[1])) else {
                throw ServerError.badRequest("the Upload-Metadata value of \(key) is not base64", code: "invalid_tus_header")
            }
            // A name in another encoding keeps what can be read; a note id that is not one names no note (404).
            pairs[String(key)] = String(decoding: bytes, as: UTF8.self)
        }
        return pairs
    }

    /// `metadata` written back as `Upload-Metadata`, keys sorted.
    static func metadataHeader(_ metadata: [String: String]) -> String {
        metadata.keys.sorted().map { key in
            let value = metadata[key]!
            return value.isEmpty ? key : key + " " + Data(value.utf8).base64EncodedString()
        }.joined(separator: ",")
    }

    /// `Upload-Checksum: sha256 <base64 digest>`, or `nil` when the request has none.
    static func checksum(of request: Request) throws -> UploadChecksum? {
        guard let header = request.headers[uploadChecksum] else { return nil }
        let parts = header.split(separator: " ")
        guard parts.count == 2, parts[0].lowercased() == "sha256" else {
            throw ServerError.badRequest("Upload-Checksum must be `sha256 <base64 digest>`; sha256 is the algorithm this server checks",
                                         code: "checksum_algorithm_unsupported")
        }
        guard let digest = Data(base64Encoded: String(parts[1])), let checksum = UploadChecksum(sha256: Array(digest)) else {
            throw ServerError.badRequest("the Upload-Checksum digest is not a base64-encoded SHA-256", code: "invalid_tus_header")
        }
        return checksum
    }

    /// An `Upload-Expires` value (an HTTP date, RFC 9110).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
