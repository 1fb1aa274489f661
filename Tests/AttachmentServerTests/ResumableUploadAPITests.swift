@testable import AttachmentServer
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The tus 1.0 endpoint, driven as a tus client would — and as a hostile one would.
@Suite("Resumable uploads (tus) over HTTP", .timeLimit(.minutes(2)))
struct ResumableUploadAPITests {
    static let tus: HTTPFields = [TusProtocol.tusResumable: "1.0.0"]

    static func metadata(note: String, filename: String = "Dune.jpg") -> String {
        "noteId \(Data(note.utf8).base64EncodedString()),filename \(Data(filename.utf8).base64EncodedString())"
    }

    /// Creates an upload of `length` bytes for `note`; its path.
    static func create(_ client: some TestClientProtocol, note: String, length: Int) async throws -> String {
        var headers = tus
        headers[TusProtocol.uploadLength] = String(length)
        headers[TusProtocol.uploadMetadata] = metadata(note: note)
        let response = try await client.execute(uri: "/api/uploads", method: .post, headers: headers)
        #expect(response.status == .created)
        #expect(response.headers[TusProtocol.tusResumable] == "1.0.0")
        #expect(response.headers[TusProtocol.uploadExpires]?.hasSuffix(" GMT") == true)
        return try #require(response.headers[.location])
    }

    static func patch(_ client: some TestClientProtocol, _ path: String, offset: Int, _ bytes: Data, extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = tus
        headers[.contentType] = TusProtocol.patchMediaType
        headers[TusProtocol.uploadOffset] = String(offset)
        headers.append(contentsOf: extra)
        return try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(data: bytes))
    }

    static func offset(_ client: some TestClientProtocol, _ path: String) async throws -> Int? {
        let response = try await client.execute(uri: path, method: .head, headers: tus)
        return response.headers[TusProtocol.uploadOffset].flatMap { Int($0) }
    }

    @Test("OPTIONS says tus 1.0.0 with creation, termination, checksum (sha256) and expiration")
    func capabilities() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/uploads", method: .options)
            #expect(response.status == .noContent)
            #expect(response.headers[TusProtocol.tusVersion] == "1.0.0")
            #expect(response.headers[TusProtocol.tusExtension] == "creation,termination,checksum,expiration")
            #expect(response.headers[TusProtocol.tusChecksumAlgorithm] == "sha256")
            #expect(response.headers[TusProtocol.tusMaxSize] == String(256 << 20))
        }
    }

    @Test("created, sent in two pieces, asked for its offset between them: the attachment is the photo, named in Attachment-Id")
    func uploadInPieces() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try Data(contentsOf: try Corpus.file("good/Dune.jpg"))
            let path = try await Self.create(client, note: note.id, length: photo.count)
            let first = try await Self.patch(client, path, offset: 0, photo.prefix(100_000))
            #expect(first.status == .noContent)
            #expect(first.headers[TusProtocol.uploadOffset] == "100000")
            #expect(try await Self.offset(client, path) == 100_000)
            let checksum = "sha256 " + Data(SHA256.hash(data: photo.suffix(from: 100_000))).base64EncodedString()
            let last = try await Self.patch(client, path, offset: 100_000, Data(photo.suffix(from: 100_000)), extra: [TusProtocol.uploadChecksum: checksum])
            #expect(last.status == .noContent)
            let id = try #require(last.headers[TusProtocol.attachmentID])
            let original = try await client.execute(uri: "/api/attachments/\(id)/original", method: .get)
            #expect(Data(buffer: original.body) == photo)
            let asked = try await client.execute(uri: path, method: .head, headers: Self.tus)
            #expect(asked.headers[TusProtocol.attachmentID] == id)
            #expect(asked.headers[TusProtocol.uploadMetadata] == Self.metadata(note: note.id).split(separator: ",").sorted().joined(separator: ","))
        }
    }

    @Test("a hostile client is refused with tus's statuses and stores nothing wrong",
          arguments: ["no version", "foreign version", "wrong type", "no offset", "wrong offset", "bad checksum",
                      "unknown algorithm", "past the length"])
    func hostilePieces(kind: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote()
            let path = try await Self.create(client, note: note.id, length: 10)
            _ = try await Self.patch(client, path, offset: 0, Data("abcd".utf8))
            var headers: HTTPFields = [TusProtocol.tusResumable: "1.0.0", .contentType: TusProtocol.patchMediaType, TusProtocol.uploadOffset: "4"]
            var body = Data("efg".utf8)
            let expected: (Int, String)
            switch kind {
            case "no version": headers[TusProtocol.tusResumable] = nil; expected = (400, "tus_version_required")
            case "foreign version": headers[TusProtocol.tusResumable] = "0.2.2"; expected = (412, "tus_version_unsupported")
            case "wrong type": headers[.contentType] = "application/octet-stream"; expected = (415, "unsupported_media_type")
            case "no offset": headers[TusProtocol.uploadOffset] = nil; expected = (400, "upload_offset_required")
            case "wrong offset": headers[TusProtocol.uploadOffset] = "0"; expected = (409, "upload_offset_mismatch")
            case "bad checksum":
                headers[TusProtocol.uploadChecksum] = "sha256 " + Data(SHA256.hash(data: Data("xyz".utf8))).base64EncodedString()
                expected = (460, "checksum_mismatch")
            case "unknown algorithm": headers[TusProtocol.uploadChecksum] = "md5 AAAA"; expected = (400, "checksum_algorithm_unsupported")
            default: body = Data(count: 100); expected = (413, "upload_exceeds_length")
            }
            let response = try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(data: body))
            #expect(response.status.code == expected.0)
            #expect(JSON.errorCode(response) == expected.1)
            #expect(response.headers[TusProtocol.tusResumable] == "1.0.0")
            #expect(try await Self.offset(client, path) == 4)
        }
        #expect(try await fixture.store().statistics().attachments == 0)
    }

    @Test("creation refuses what cannot be an upload: no length, deferred length, too large, empty, no note, no name, broken metadata",
          arguments: [("no length", 400, "upload_length_required"), ("deferred", 400, "upload_length_required"),
                      ("too large", 413, "upload_too_large"), ("empty", 422, "empty_upload"), ("unknown note", 404, "note_not_found"),
                      ("not a note id", 404, "note_not_found"), ("no note", 400, "note_required"), ("no name", 400, "filename_required"),
                      ("not base64", 400, "invalid_tus_header"), ("negative", 400, "invalid_tus_header")])
    func hostileCreation(kind: String, status: Int, code: String) async throws {
        try await ServerFixture(maxUploadBytes: 1 << 20).test { client in
            let note = try await client.createNote()
            var headers = Self.tus
            headers[TusProtocol.uploadLength] = "10"
            headers[TusProtocol.uploadMetadata] = Self.metadata(note: note.id)
            let b64 = { (text: String) in Data(text.utf8).base64EncodedString() }
            switch kind {
            case "no length": headers[TusProtocol.uploadLength] = nil
            case "deferred": headers[TusProtocol.uploadLength] = nil; headers[TusProtocol.uploadDeferLength] = "1"
            case "too large": headers[TusProtocol.uploadLength] = String((1 << 20) + 1)
            case "empty": headers[TusProtocol.uploadLength] = "0"
            case "unknown note": headers[TusProtocol.uploadMetadata] = Self.metadata(note: "00000000-0000-0000-0000-000000000000")
            case "not a note id": headers[TusProtocol.uploadMetadata] = Self.metadata(note: "../../etc")
            case "no note": headers[TusProtocol.uploadMetadata] = "filename \(b64("a.jpg"))"
            case "no name": headers[TusProtocol.uploadMetadata] = "noteId \(b64(note.id))"
            case "not base64": headers[TusProtocol.uploadMetadata] = "noteId !!!,filename \(b64("a"))"
            default: headers[TusProtocol.uploadLength] = "-5"
            }
            let response = try await client.execute(uri: "/api/uploads", method: .post, headers: headers)
            #expect(response.status.code == status)
            #expect(JSON.errorCode(response) == code)
        }
    }

    @Test("an identifier that could name a path names nothing; a cancelled upload is gone; without the token nothing answers")
    func identifiersCancellationAndToken() async throws {
        try await ServerFixture(token: "t").test { client in
            var auth = Self.tus
            auth[.authorization] = "Bearer t"
            var noteHeaders = JSON.headers
            noteHeaders[.authorization] = "Bearer t"
            let note = try await client.createNote(headers: noteHeaders)
            for hostile in ["..%2F..%2Fcatalog.sqlite", "0123456789ABCDEF0123456789ABCDEF", "x", "0123456789abcdef0123456789abcdef.json"] {
                #expect(try await client.execute(uri: "/api/uploads/\(hostile)", method: .head, headers: auth).status == .notFound)
            }
            var create = auth
            create[TusProtocol.uploadLength] = "10"
            create[TusProtocol.uploadMetadata] = Self.metadata(note: note.id)
            var anonymous = create
            anonymous[.authorization] = nil
            #expect(try await client.execute(uri: "/api/uploads", method: .post, headers: anonymous).status == .unauthorized)
            let path = try #require(try await client.execute(uri: "/api/uploads", method: .post, headers: create).headers[.location])
            #expect(try await client.execute(uri: path, method: .head, headers: Self.tus).status == .unauthorized)
            #expect(try await client.execute(uri: path, method: .delete, headers: auth).status == .noContent)
            let gone = try await client.execute(uri: path, method: .head, headers: auth)
            #expect(gone.status == .notFound)
        }
    }
}
