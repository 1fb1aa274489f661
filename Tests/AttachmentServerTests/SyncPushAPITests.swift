@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `POST /sync/changes` and `HEAD|PATCH /sync/blobs/{hash}`: a device pushes records and the
/// bytes of its originals. The pusher is as untrusted as a peer pulled from.
@Suite("Push: devices send changes and originals", .timeLimit(.minutes(3)))
struct SyncPushAPITests {
    static let token = "full-token-of-the-server"
    static let pushToken = "push-token-of-a-device"
    static let push: HTTPFields = [.authorization: "Bearer \(pushToken)", .contentType: "application/json"]

    static func fixture() throws -> ServerFixture {
        var fixture = try ServerFixture(token: token)
        fixture.configuration.pushToken = pushToken
        fixture.configuration.syncToken = "sync-read-token-of-a-peer"
        return fixture
    }

    static func post(_ batch: [String: Any], _ client: some TestClientProtocol, headers: HTTPFields = push) async throws -> TestResponse {
        try await client.execute(uri: "/sync/changes", method: .post, headers: headers,
                                 body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: batch)))
    }

    static func patch(_ hash: String, at offset: Int, _ bytes: Data, _ client: some TestClientProtocol,
                      contentType: String = "application/offset+octet-stream") async throws -> TestResponse {
        try await client.execute(uri: "/sync/blobs/\(hash)", method: .patch, headers: [
            .authorization: "Bearer \(pushToken)", .contentType: contentType, TusProtocol.uploadOffset: String(offset),
        ], body: ByteBuffer(data: bytes))
    }

    static func offset(_ hash: String, _ client: some TestClientProtocol) async throws -> (status: HTTPResponse.Status, offset: Int?) {
        let response = try await client.execute(uri: "/sync/blobs/\(hash)", method: .head, headers: [.authorization: "Bearer \(pushToken)"])
        return (response.status, response.headers[TusProtocol.uploadOffset].flatMap(Int.init))
    }

    struct Answer: Decodable {
        var applied: SyncApplyReport
        var wanted: [String]
    }

    @Test("a push token pushes and pulls but cannot browse, write through the API or log in; a sync-read token cannot push")
    func pushTokenIsScoped() async throws {
        let fixture = try Self.fixture()
        try await fixture.test { client in
            let pusher: HTTPFields = [.authorization: "Bearer \(Self.pushToken)"]
            #expect(try await client.execute(uri: "/sync/changes?since=0", method: .get, headers: pusher).status == .ok)
            let empty: [String: Any] = ["peerID": "a-device", "changes": [], "nextSequence": 0, "hasMore": false]
            #expect(try await Self.post(empty, client).status == .ok)
            for (path, method) in [("/api/notes", HTTPRequest.Method.get), ("/metrics", .get), ("/", .get)] {
                let response = try await client.execute(uri: path, method: method, headers: pusher)
                #expect(response.status == .forbidden, "\(method) \(path)")
            }
            let login = try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                 body: ByteBuffer(string: "token=\(Self.pushToken)"))
            #expect(login.status == .unauthorized && login.headers[.setCookie] == nil)
            let reader: HTTPFields = [.authorization: "Bearer sync-read-token-of-a-peer", .contentType: "application/json"]
            let refused = try await Self.post(empty, client, headers: reader)
            #expect(refused.status == .forbidden && JSON.errorCode(refused) == "insufficient_scope")
            #expect(try await Self.post(empty, client, headers: [.contentType: "application/json"]).status == .unauthorized)
        }
    }

    @Test("a push token needs a full token and must differ from the other tokens")
    func pushTokenConfiguration() {
        var configuration = ServerConfiguration()
        configuration.pushToken = "p"
        #expect(throws: ServerConfiguration.Problem.pushTokenWithoutToken) { try configuration.validate() }
        configuration.token = "p"
        #expect(throws: ServerConfiguration.Problem.pushTokenReused) { try configuration.validate() }
        configuration.token = "t"
        configuration.syncToken = "p"
        #expect(throws: ServerConfiguration.Problem.pushTokenReused) { try configuration.validate() }
        configuration.syncToken = "s"
        #expect(throws: Never.self) { try configuration.validate() }
    }

    @Test("a hostile pusher's batch is refused change by change exactly like a pulled one, and only named originals are wanted")
    func hostilePushIsContained() async throws {
        let hostile = try HostilePeer(ending: .stuck)
        let fixture = try Self.fixture()
        try await fixture.test { client in
            let response = try await Self.post(hostile.batch(since: 0), client)
            #expect(response.status == .ok)
            let answer = try JSON.decode(Answer.self, response)
            #expect(answer.applied.invalid == 6, "\(answer.applied.problems)")
            let reasons = answer.applied.problems.joined(separator: "\n")
            for expected in HostilePeer.refusalReasons {
                #expect(reasons.contains(expected), "no reason mentions \(expected): \(reasons)")
            }
            #expect(!reasons.contains("<script>"), "reasons quote the pusher's text escaped, never raw")
            #expect(Set(answer.wanted) == [hostile.photoHash, hostile.otherPhotoHash], "the refused huge record asks for nothing")

            // The same batch again changes nothing.
            let again = try JSON.decode(Answer.self, try await Self.post(hostile.batch(since: 0), client))
            #expect(again.applied.notesApplied == 0 && again.applied.attachmentsApplied == 0)

            for (batch, code) in [
                (["peerID": "<b>me</b>", "changes": [], "nextSequence": 0, "hasMore": false] as [String: Any], "invalid_batch"),
                (["changes": []], "invalid_batch"),
                (["peerID": "a-device", "changes": [], "nextSequence": -1, "hasMore": false], "invalid_batch"),
            ] {
                let refused = try await Self.post(batch, client)
                #expect(refused.status == .badRequest && JSON.errorCode(refused) == code, "\(batch)")
            }
            let own = try await Self.post(["peerID": try await fixture.store().peerID, "changes": [], "nextSequence": 0, "hasMore": false], client)
            #expect(own.status == .conflict && JSON.errorCode(own) == "own_batch")
            let notJSON = try await client.execute(uri: "/sync/changes", method: .post,
                                                   headers: [.authorization: "Bearer \(Self.pushToken)", .contentType: "text/plain"],
                                                   body: ByteBuffer(string: "{}"))
            #expect(notJSON.status == .unsupportedMediaType)
        }
        let store = try await fixture.store()
        let notes = try await store.notes(limit: 50)
        #expect(Set(notes.map(\.id.rawValue)) == [HostilePeer.lyingNote, HostilePeer.afterTombstoneNote])
        #expect(try await store.verify().isClean)
    }

    @Test("a batch over 16 MiB or 10,000 changes is refused before anything is applied")
    func oversizedPushIsRefused() async throws {
        let fixture = try Self.fixture()
        try await fixture.test { client in
            let note = HostilePeer.note(HostilePeer.lyingNote, title: "one of many")
            let many: [String: Any] = ["peerID": "a-device", "changes": Array(repeating: note, count: 10_001), "nextSequence": 1, "hasMore": false]
            let tooMany = try await Self.post(many, client)
            #expect(tooMany.status == .badRequest && JSON.errorCode(tooMany) == "too_many_changes")
            let padding = String(repeating: "x", count: 17 << 20)
            let huge: [String: Any] = ["peerID": "a-device", "changes": [], "nextSequence": 1, "hasMore": false, "padding": padding]
            let tooBig = try await Self.post(huge, client)
            #expect(tooBig.status == .contentTooLarge && JSON.errorCode(tooBig) == "batch_too_large", "\(String(buffer: tooBig.body))")
        }
        #expect(try await fixture.store().notes(limit: 5).isEmpty)
    }

    @Test("pushed bytes are installed only when whole and hashing to their name; too many, wrong, misplaced or unwanted bytes are refused")
    func pushedBytesAreVerified() async throws {
        let hostile = try HostilePeer(ending: .stuck)
        let fixture = try Self.fixture()
        try await fixture.test { client in
            _ = try await Self.post(hostile.batch(since: 0), client)
            let photo = hostile.photo
            #expect(try await Self.offset(hostile.photoHash, client) == (.ok, 0))
            #expect(try await Self.offset(String(repeating: "a", count: 64), client).status == .notFound, "no record wants it")
            let unwanted = try await Self.patch(String(repeating: "a", count: 64), at: 0, Data("x".utf8), client)
            #expect(unwanted.status == .notFound && JSON.errorCode(unwanted) == "blob_not_wanted")
            #expect(try await Self.patch(hostile.photoHash, at: 0, photo, client, contentType: "image/jpeg").status == .unsupportedMediaType)

            // The first half, then a request that claims to continue elsewhere, then the rest.
            let half = photo.count / 2
            let first = try await Self.patch(hostile.photoHash, at: 0, photo.prefix(half), client)
            #expect(first.status == .noContent && first.headers[TusProtocol.uploadOffset] == String(half))
            #expect(try await Self.offset(hostile.photoHash, client) == (.ok, half))
            let misplaced = try await Self.patch(hostile.photoHash, at: 0, photo, client)
            #expect(misplaced.status == .conflict && misplaced.headers[TusProtocol.uploadOffset] == String(half))
            let rest = try await Self.patch(hostile.photoHash, at: half, photo.suffix(from: half), client)
            #expect(rest.status == .noContent && rest.headers[TusProtocol.uploadOffset] == String(photo.count))
            #expect(try await Self.offset(hostile.photoHash, client) == (.ok, photo.count), "once here, nothing more is wanted")
            let twice = try await Self.patch(hostile.photoHash, at: photo.count, Data("x".utf8), client)
            #expect(twice.status == .conflict, "bytes already here are never taken twice")

            // The short-count record: its count of wrong bytes, then more bytes than it announces.
            let other = hostile.otherPhoto
            let wrong = try await Self.patch(hostile.otherPhotoHash, at: 0, other.prefix(other.count - 100), client)
            #expect(wrong.status == .unprocessableContent && JSON.errorCode(wrong) == "hash_mismatch")
            #expect(try await Self.offset(hostile.otherPhotoHash, client) == (.ok, 0), "wrong bytes are dropped, the next push starts over")
            let tooMany = try await Self.patch(hostile.otherPhotoHash, at: 0, other, client)
            #expect(tooMany.status == .contentTooLarge && JSON.errorCode(tooMany) == "blob_exceeds_size")
            #expect(try await Self.offset(hostile.otherPhotoHash, client) == (.ok, 0), "a body announced too long is refused unread")

            // The bytes decide the type: the record claimed text/javascript.
            let resource = try await client.execute(uri: "/api/attachments/\(HostilePeer.lyingTypeAttachment)",
                                                    method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(String(buffer: resource.body).contains("\"mediaType\":\"image\\/jpeg\"") || String(buffer: resource.body).contains("\"mediaType\":\"image/jpeg\""))
        }
        let store = try await fixture.store()
        #expect(try await store.hasBlob(try #require(BlobHash(rawValue: hostile.photoHash))))
        #expect(try await store.hasBlob(try #require(BlobHash(rawValue: hostile.otherPhotoHash))) == false, "nothing unverified is stored")
        let verification = try await store.verify()
        #expect(verification.isClean, "\(verification)")
    }

    @Test("a push whose connection goes silent midway keeps what arrived; the next one continues from HEAD's offset and moves only the rest")
    func silentCutPushResumes() async throws {
        var fixture = try Self.fixture()
        fixture.configuration.idleTimeout = .seconds(2)
        fixture.configuration.minimumUploadRate = nil
        let source = try Corpus.file("special/large-16mb.jpg")
        let photo = try Data(contentsOf: source)
        let hash = try Files.sha256(source)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let noteID = "77777777-7777-4777-8777-777777777777"
        let batch: [String: Any] = ["peerID": "a-device", "nextSequence": 2, "hasMore": false, "changes": [
            HostilePeer.note(noteID, title: "from the phone"),
            ["kind": "attachment", "attachment": [
                "id": "88888888-8888-4888-8888-888888888888", "noteID": noteID, "position": 0, "blobHash": hash,
                "byteCount": photo.count, "mediaType": "image/jpeg", "filename": "big.jpg", "metadata": [:] as [String: String],
                "createdAt": now, "updatedAt": now, "clock": HostilePeer.clock(),
            ] as [String: Any]],
        ]]
        let body = try JSONSerialization.data(withJSONObject: batch)
        try await LiveServerTests.serve(fixture) { port, _ in
            let answer = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("POST", "/sync/changes", [
                    "Authorization: Bearer \(Self.pushToken)", "Content-Type: application/json", "Content-Length: \(body.count)",
                ]) + body)
                return try await read()
            }
            #expect(answer?.status == 200 && String(decoding: answer?.body ?? Data(), as: UTF8.self).contains(hash))

            // Six of the sixteen megabytes, then nothing: no close, no more bytes. (Under load the
            // server's idle timeout may end the connection while they are still being written:
            // that is a cut too.)
            let sent = 6 << 20
            _ = try? await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("PATCH", "/sync/blobs/\(hash)", [
                    "Authorization: Bearer \(Self.pushToken)", "Content-Type: application/offset+octet-stream",
                    "Upload-Offset: 0", "Content-Length: \(photo.count)",
                ]) + photo.prefix(sent))
                return try await read()  // the server's idle timeout ends the connection
            }
            // The server notices the silence, ends the transfer and keeps the bytes; once the cut
            // transfer lets go of them (423 until then), the rest continues after HEAD's offset.
            var resumedFrom: Int?
            var rest: RawHTTPConnection.Response?
            for _ in 0..<60 where rest?.status != 204 {
                try await Task.sleep(for: .milliseconds(250))
                let head = try await RawHTTPConnection.with(port: port) { write, read in
                    try await write(LiveServerTests.requestHead("HEAD", "/sync/blobs/\(hash)", ["Authorization: Bearer \(Self.pushToken)"]))
                    return try await read()
                }
                guard let offset = head?.headers["upload-offset"].flatMap(Int.init), offset > 0 else { continue }
                resumedFrom = offset
                rest = try? await RawHTTPConnection.with(port: port) { write, read in
                    try await write(LiveServerTests.requestHead("PATCH", "/sync/blobs/\(hash)", [
                        "Authorization: Bearer \(Self.pushToken)", "Content-Type: application/offset+octet-stream",
                        "Upload-Offset: \(offset)", "Content-Length: \(photo.count - offset)",
                    ]) + photo.suffix(from: offset))
                    return try await read()
                }
            }
            #expect(rest?.status == 204 && rest?.headers["upload-offset"] == String(photo.count), "\(String(describing: rest?.status))")
            let kept = try #require(resumedFrom)
            #expect(kept > 0 && kept <= sent, "what arrived before the cut was kept (\(kept) of \(sent)), and only the rest was sent again")
        }
        let store = try await fixture.store()
        let attachment = try await store.attachment(AttachmentID(rawValue: "88888888-8888-4888-8888-888888888888"))
        #expect(attachment.availability == .local)
        let file = try await store.blobFile(try #require(BlobHash(rawValue: hash)))
        #expect(try Data(contentsOf: file.url) == photo, "byte for byte")
        #expect(try await store.verify().isClean)
    }
}
