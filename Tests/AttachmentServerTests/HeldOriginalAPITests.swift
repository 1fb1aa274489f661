@testable import AttachmentServer
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Upload by hash over HTTP: `HEAD /api/blobs/sha256/{hash}`, the JSON form of the attachments
/// POST, and a tus creation naming the whole file's digest.
@Suite("Held originals over HTTP: ask first, send only what is missing", .timeLimit(.minutes(2)))
struct HeldOriginalAPITests {
    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test("HEAD says whether the server holds the bytes; a JSON reference attaches them (201), or is 404 original_not_held")
    func askThenAttach() async throws {
        try await ServerFixture().test { client in
            let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
            let hash = Self.hex(photo)
            let note = try await client.createNote()
            let before = try await client.execute(uri: "/api/blobs/sha256/\(hash)", method: .head)
            #expect(before.status == .notFound)
            let reference = ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["hash": "sha256:\(hash)", "filename": "again.jpg"]))
            let refused = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: JSON.headers, body: reference)
            #expect(refused.status == .notFound && JSON.errorCode(refused) == "original_not_held")

            _ = try await client.upload("good/Dune.jpg", to: note.id)
            let after = try await client.execute(uri: "/api/blobs/sha256/\(hash)", method: .head)
            #expect(after.status == .ok)
            let attached = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: JSON.headers, body: reference)
            #expect(attached.status == .created)
            let resource = try JSON.decode(AttachmentResource.self, attached)
            #expect(resource.hash == "sha256:\(hash)" && resource.filename == "again.jpg" && resource.mediaType == "image/jpeg")
            #expect(attached.headers[.location] == resource.url)
            let original = try await client.execute(uri: "/api/attachments/\(resource.id)/original", method: .get)
            #expect(Data(buffer: original.body) == photo)
        }
    }

    @Test("a malformed hash is 400 bad_hash, in the path and in a reference; a reference without a file name is 400",
          arguments: ["/api/blobs/sha256/ABC", "/api/blobs/sha256/" + String(repeating: "g", count: 64)])
    func malformedHashes(path: String) async throws {
        try await ServerFixture().test { client in
            #expect(try await client.execute(uri: path, method: .head).status == .badRequest)
            let note = try await client.createNote()
            for object: [String: String] in [["hash": "md5:abc", "filename": "a"], ["hash": "sha256:" + String(repeating: "A", count: 64), "filename": "a"],
                                             ["hash": "sha256:" + String(repeating: "a", count: 64)]] {
                let response = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: JSON.headers,
                                                        body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: object)))
                #expect(response.status == .badRequest, "\(object)")
            }
        }
    }

    @Test("a tus creation whose Repr-Digest names held bytes is finished in its answer; a malformed digest is 400")
    func tusCreationOfHeldBytes() async throws {
        try await ServerFixture().test { client in
            let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
            let note = try await client.createNote()
            _ = try await client.upload("good/Dune.jpg", to: note.id)
            var headers = ResumableUploadAPITests.tus
            headers[TusProtocol.uploadLength] = String(photo.count)
            headers[TusProtocol.uploadMetadata] = ResumableUploadAPITests.metadata(note: note.id, filename: "copy.jpg")
            headers[RepresentationDigest.header] = "sha-256=:\(Data(SHA256.hash(data: photo)).base64EncodedString()):"
            let created = try await client.execute(uri: "/api/uploads", method: .post, headers: headers)
            #expect(created.status == .created)
            #expect(created.headers[TusProtocol.uploadOffset] == String(photo.count))
            let id = try #require(created.headers[TusProtocol.attachmentID])
            let original = try await client.execute(uri: "/api/attachments/\(id)/original", method: .get)
            #expect(Data(buffer: original.body) == photo)
            let location = try #require(created.headers[.location])
            #expect(try await ResumableUploadAPITests.offset(client, location) == photo.count)

            headers[RepresentationDigest.header] = "sha-256=:AAAA:"
            let malformed = try await client.execute(uri: "/api/uploads", method: .post, headers: headers)
            #expect(malformed.status == .badRequest && JSON.errorCode(malformed) == "invalid_digest")
        }
    }
}
