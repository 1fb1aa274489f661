@testable import AttachmentServer
import AttachmentStore
import Foundation
import Testing

/// The API's attachment object is built from the model: its keys are the contract's
/// (`openapi.yaml`), the addresses follow from the id and hash, and reading it back gives the
/// same attachment.
@Suite("Attachment resource JSON")
struct AttachmentResourceJSONTests {
    static let hash = BlobHash(rawValue: String(repeating: "ef", count: 32))!
    static let photo = Attachment(
        id: AttachmentID(rawValue: "a-7"), noteID: NoteID(rawValue: "n-3"), position: 1, blobHash: hash,
        byteCount: 2_000_000, mediaType: "image/heic", filename: "IMG_0001.HEIC",
        image: .init(width: 4032, height: 3024, orientation: 6), metadata: ["caption": "dawn"],
        createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_500),
        state: .present
    )

    static func object(_ resource: AttachmentResource) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(resource.jsonText.bytes)) as? [String: Any])
    }

    @Test("an image's object has every key of the contract, the hash prefixed and the addresses derived")
    func imageKeys() throws {
        let object = try Self.object(AttachmentResource(Self.photo))
        #expect(Set(object.keys) == [
            "id", "noteId", "position", "filename", "mediaType", "byteCount", "hash", "image", "metadata", "available",
            "state", "createdAt", "updatedAt", "url", "originalUrl", "thumbnailUrl", "displayUrl",
        ])
        #expect(object["hash"] as? String == "sha256:" + Self.hash.rawValue)
        #expect(object["noteId"] as? String == "n-3")
        #expect(object["available"] as? Bool == true)
        #expect(object["state"] as? String == "present")
        #expect(object["url"] as? String == "/api/attachments/a-7")
        #expect(object["originalUrl"] as? String == "/api/attachments/a-7/original?v=\(Self.hash.rawValue)")
        // HEIC is not drawn by every browser: the viewer gets the display rendition.
        #expect(object["displayUrl"] as? String == "/api/attachments/a-7/thumbnail?v=\(Self.hash.rawValue)&size=2048")
    }

    @Test("a file that is not an image has no image, thumbnail or display address")
    func nonImage() throws {
        var pdf = Self.photo
        pdf.image = nil
        pdf.mediaType = "application/pdf"
        let object = try Self.object(AttachmentResource(pdf))
        #expect(object["image"] == nil && object["thumbnailUrl"] == nil && object["displayUrl"] == nil)
        #expect(object["originalUrl"] != nil)
    }

    @Test("a transfer under way shows state fetching, not available, with its progress")
    func fetching() throws {
        var remote = Self.photo
        remote.state = .remote
        let resource = AttachmentResource(remote, fetch: .init(received: 1_000, total: 2_000_000))
        let object = try Self.object(resource)
        #expect(object["state"] as? String == "fetching")
        #expect(object["available"] as? Bool == false)
        #expect((object["fetch"] as? [String: Any])?["received"] as? Int == 1_000)
    }

    @Test("the object read back is the same resource, and the model's fields read through it")
    func roundTrip() throws {
        let resource = AttachmentResource(Self.photo)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(AttachmentResource.self, from: Data(resource.jsonText.bytes))
        #expect(decoded == resource)
        #expect(decoded.filename == "IMG_0001.HEIC" && decoded.position == 1 && decoded.byteCount == 2_000_000)
    }

    @Test("an object whose hash is not sha256:<64 hex digits> is refused", arguments: [
        "ef", "md5:" + String(repeating: "ef", count: 32), String(repeating: "ef", count: 32), "sha256:" + String(repeating: "zz", count: 32),
    ])
    func badHash(hash: String) throws {
        var object = try Self.object(AttachmentResource(Self.photo))
        object["hash"] = hash
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AttachmentResource.self, from: data) }
    }
}
