import AttachmentStore
import Foundation
import HTTPTypes
import Hummingbird

/// The body of `POST /api/notes/{id}/attachments` sent as `application/json`: an attachment of
/// bytes the server already holds, named by their hash, so they are not sent again. 404
/// `original_not_held` when the server does not hold them. (A JSON *file* is uploaded under any
/// other type, `application/octet-stream` say: the store sniffs the type from the bytes anyway.)
struct OriginalReference: JSONObjectBody {
    /// `sha256:` and the bytes' SHA-256 as 64 lowercase hexadecimal digits.
    var hash: String
    /// The new attachment's name.
    var filename: String
    /// The new attachment's metadata (none when left out).
    var metadata: [String: String]?
    /// The size the client knows the file by; bytes of another size are not its file.
    var byteCount: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable { case hash, filename, metadata, byteCount }

    /// Whether `request` sends one: its body is `application/json`.
    static func isSent(in request: Request) -> Bool {
        request.headers[.contentType].map { HeaderParameters($0).value } == "application/json"
    }

    /// ``hash`` as a blob hash.
    /// - Throws: 400 `bad_hash` unless it is `sha256:` and 64 lowercase hexadecimal digits.
    func blobHash() throws -> BlobHash {
        guard hash.hasPrefix("sha256:"), let blob = BlobHash(rawValue: String(hash.dropFirst("sha256:".count))) else {
            throw ServerError.badRequest("hash must be sha256: followed by 64 lowercase hexadecimal digits", code: "bad_hash")
        }
        return blob
    }
}

/// The whole file's digest a client may send when it creates a resumable upload
/// (`Repr-Digest`, RFC 9530, with `sha-256`): when the server already holds those bytes the upload
/// finishes at once, without a byte sent.
enum RepresentationDigest {
    static let header = HTTPField.Name("Repr-Digest")!

    /// The SHA-256 the request's `Repr-Digest` names, or `nil` when it names none (other
    /// algorithms are ignored, as RFC 9530 allows).
    /// - Throws: 400 `invalid_digest` for a `sha-256` member that is not a byte sequence of 32 bytes.
    static func sha256(of request: Request) throws -> BlobHash? {
        guard let value = request.headers[header] else { return nil }
        for member in value.split(separator: ",") {
            let parts = member.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "sha-256" else { continue }
            let item = parts[1].trimmingCharacters(in: .whitespaces)
            guard item.count > 2, item.hasPrefix(":"), item.hasSuffix(":"),
                  let digest = Data(base64Encoded: String(item.dropFirst().dropLast())), digest.count == 32,
                  let hash = BlobHash(rawValue: digest.map { String(format: "%02x", $0) }.joined())
            else {
                throw ServerError.badRequest("Repr-Digest's sha-256 must be a structured byte sequence (:base64:) of 32 bytes", code: "invalid_digest")
            }
            return hash
        }
        return nil
    }
}
