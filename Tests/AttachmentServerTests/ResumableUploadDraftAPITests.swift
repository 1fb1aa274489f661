@testable import AttachmentServer
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The IETF resumable-upload draft on the uploads tus writes: where an upload stands, the rest
/// of its bytes, a wrong offset and a cancel, in each interop version spoken. (The creation,
/// with its 104 interim answer, is driven by a raw client against a real server in
/// `make tus-test`.)
@Suite("Resumable uploads over HTTP: the IETF draft beside tus", .timeLimit(.minutes(2)))
struct ResumableUploadDraftAPITests {
    static func draft(_ version: Int, complete: Bool? = nil) -> HTTPFields {
        var headers: HTTPFields = [ResumableUploadDraft.interopVersion: String(version)]
        if let complete {
            if version >= 5 {
                headers[ResumableUploadDraft.uploadComplete] = complete ? "?1" : "?0"
            } else {
                headers[ResumableUploadDraft.uploadIncomplete] = complete ? "?0" : "?1"
            }
        }
        return headers
    }

    @Test("HEAD says where an upload begun by tus stands; PATCH sends the rest and answers with the attachment", arguments: [3, 5, 6])
    func resumeWithTheDraft(version: Int) async throws {
        try await ServerFixture().test { client in
            let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
            let note = try await client.createNote()
            let path = try await ResumableUploadAPITests.create(client, note: note.id, length: photo.count)
            _ = try await ResumableUploadAPITests.patch(client, path, offset: 0, photo.prefix(300_000))

            let head = try await client.execute(uri: path, method: .head, headers: Self.draft(version))
            #expect(head.status == .noContent)
            #expect(head.headers[TusProtocol.uploadOffset] == "300000")
            #expect(head.headers[ResumableUploadDraft.interopVersion] == String(version))
            if version >= 5 {
                #expect(head.headers[ResumableUploadDraft.uploadComplete] == "?0")
            } else {
                #expect(head.headers[ResumableUploadDraft.uploadIncomplete] == "?1")
            }

            var headers = Self.draft(version, complete: true)
            headers[TusProtocol.uploadOffset] = "300000"
            headers[.contentType] = version >= 6 ? "application/partial-upload" : "application/octet-stream"
            let rest = try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(data: photo.suffix(from: 300_000)))
            #expect(rest.status == .created)
            let attachment = try JSON.decode(AttachmentResource.self, rest)
            #expect(attachment.hash == "sha256:" + SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined())
            #expect(rest.headers[TusProtocol.uploadOffset] == String(photo.count))
            let original = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
            #expect(Data(buffer: original.body) == photo)
        }
    }

    @Test("a wrong offset is 409 naming the offset; an unknown interop version or a malformed field is 400; DELETE cancels")
    func refusalsAndCancel() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let path = try await ResumableUploadAPITests.create(client, note: note.id, length: 10)
            _ = try await ResumableUploadAPITests.patch(client, path, offset: 0, Data("abcd".utf8))

            var headers = Self.draft(3, complete: true)
            headers[TusProtocol.uploadOffset] = "0"
            let wrong = try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(string: "efghij"))
            #expect(wrong.status == .conflict && wrong.headers[TusProtocol.uploadOffset] == "4")
            #expect(JSON.errorCode(wrong) == "upload_offset_mismatch")

            let unknown = try await client.execute(uri: path, method: .head, headers: [ResumableUploadDraft.interopVersion: "4"])
            #expect(unknown.status == .badRequest)
            var malformed = Self.draft(6)
            malformed[ResumableUploadDraft.uploadComplete] = "yes"
            malformed[TusProtocol.uploadOffset] = "4"
            let refused = try await client.execute(uri: path, method: .patch, headers: malformed, body: ByteBuffer(string: "efghij"))
            #expect(refused.status == .badRequest && JSON.errorCode(refused) == "invalid_upload_header")

            let cancelled = try await client.execute(uri: path, method: .delete, headers: Self.draft(5))
            #expect(cancelled.status == .noContent)
            #expect(try await client.execute(uri: path, method: .head, headers: Self.draft(5)).status == .notFound)
        }
    }

    @Test("a draft creation naming the digest of bytes the server holds is answered 201 with the attachment at once; a draft PATCH keeps tus's checksum")
    func heldBytesAndChecksums() async throws {
        try await ServerFixture().test { client in
            let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
            let note = try await client.createNote()
            _ = try await client.upload("good/Dune.jpg", to: note.id)
            var headers = Self.draft(3, complete: true)
            headers[.contentType] = "image/jpeg"
            headers[RepresentationDigest.header] = "sha-256=:\(Data(SHA256.hash(data: photo)).base64EncodedString()):"
            let created = try await client.execute(uri: "/api/notes/\(note.id)/attachments?filename=copy.jpg", method: .post,
                                                   headers: headers, body: ByteBuffer(data: photo))
            #expect(created.status == .created)
            #expect(try JSON.decode(AttachmentResource.self, created).filename == "copy.jpg")
            #expect(created.headers[TusProtocol.uploadOffset] == String(photo.count))
            #expect(created.headers[ResumableUploadDraft.uploadIncomplete] == "?0")

            let path = try await ResumableUploadAPITests.create(client, note: note.id, length: 10)
            var patch = Self.draft(5, complete: true)
            patch[TusProtocol.uploadOffset] = "0"
            patch[TusProtocol.uploadChecksum] = "sha256 " + Data(SHA256.hash(data: Data("other".utf8))).base64EncodedString()
            let refused = try await client.execute(uri: path, method: .patch, headers: patch, body: ByteBuffer(string: "0123456789"))
            #expect(refused.status.code == 460)
            #expect(try await client.execute(uri: path, method: .head, headers: Self.draft(5)).headers[TusProtocol.uploadOffset] == "0")
        }
    }
}
