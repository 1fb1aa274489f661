@testable import AttachmentClient
@testable import AttachmentServer
import Crypto
import Hummingbird
import HummingbirdTesting
import Foundation
import Testing
import TestSupport

/// The Swift client against a real `attach serve` on a loopback port.
@Suite("AttachmentClient against a real server", .timeLimit(.minutes(3)))
struct AttachmentClientTests {
    static let token = "client-token"

    /// Serves a fresh store with a token and hands `body` a client of it.
    static func withClient(bandwidth: Int64? = nil, thumbnailConcurrency: Int = 4,
                           _ body: @escaping @Sendable (AttachmentClient, Int) async throws -> Void) async throws {
        let fixture = try ServerFixture(token: token)
        try await LiveServerTests.serve(fixture) { port, _ in
            let client = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: token,
                                          thumbnailConcurrency: thumbnailConcurrency, bandwidth: bandwidth)
            try await body(client, port)
        }
    }

    static func sha256(of url: URL) throws -> String {
        "sha256:" + SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
    }

    @Test("notes and attachments: create, read, change, list, move, delete to the trash, restore, purge; a wrong token is the server's 401")
    func notesAndAttachments() async throws {
        try await Self.withClient { client, port in
            let note = try await client.createNote(title: "Trip", body: "Day 1")
            #expect(try await client.note(note.id).title == "Trip")
            #expect(try await client.updateNote(note.id, body: "Day 2").body == "Day 2")
            #expect(try await client.notes(matching: nil).notes.map(\.id) == [note.id])
            var ids: [String] = []
            for name in ["good/Dune.jpg", "good/Aqua.jpg"] {
                ids.append(try await client.upload(fileAt: try Corpus.file(name), to: note.id).value.id)
            }
            _ = try await client.moveAttachment(ids[1], to: 0)
            #expect(try await client.attachments(of: note.id).map(\.id) == [ids[1], ids[0]])
            try await client.deleteAttachment(ids[1])
            #expect(try await client.attachments(of: note.id).map(\.id) == [ids[0]])
            try await client.deleteNote(note.id)
            await #expect(throws: AttachmentClientError.self) { try await client.note(note.id) }
            #expect(Set(try await client.trash().map(\.id)) == [note.id, ids[1]], "both went to the trash")
            #expect(try await client.restoreFromTrash(note.id).kind == "note")
            #expect(try await client.attachments(of: note.id).map(\.id) == [ids[0]])
            try await client.deleteAttachment(ids[1], purge: true)
            try await client.deleteNote(note.id, purge: true)
            #expect(try await client.trash().isEmpty)
            do {
                try await client.restoreFromTrash(note.id)
                Issue.record("a purged note was restored")
            } catch AttachmentClientError.server(let status, let code, _) {
                #expect(status == 404 && code == "not_in_trash")
            }
            let stranger = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: "wrong")
            do {
                _ = try await stranger.notes()
                Issue.record("a wrong token was accepted")
            } catch AttachmentClientError.server(let status, let code, _) {
                #expect(status == 401 && code == "unauthorized")
            }
        }
    }

    @Test("an upload reports rising progress up to the whole file and becomes a byte-identical attachment")
    func uploadWithProgress() async throws {
        try await Self.withClient { client, _ in
            let note = try await client.createNote(title: "Big")
            let photo = try Corpus.file("special/large-16mb.jpg")
            let upload = client.upload(fileAt: photo, to: note.id)
            var steps: [UploadProgress] = []
            for await step in upload.progress { steps.append(step) }
            let attachment = try await upload.value
            let size = Int64(try Data(contentsOf: photo).count)
            #expect(steps.count > 3)
            #expect(steps.map(\.sent) == steps.map(\.sent).sorted())
            #expect(steps.last?.sent == size && steps.allSatisfy { $0.total == size && $0.resumedFrom == 0 })
            #expect(attachment.hash == (try Self.sha256(of: photo)) && attachment.byteCount == size)
        }
    }

    @Test("an upload cut midway continues from the server's offset when the same file is uploaded again")
    func cutAndResume() async throws {
        // 4 MB/s: the 16 MB photo is still on its way when the test cuts it.
        try await Self.withClient(bandwidth: 4 << 20) { client, _ in
            let note = try await client.createNote(title: "Cut")
            let photo = try Corpus.file("special/large-16mb.jpg")
            let first = client.upload(fileAt: photo, to: note.id)
            for await step in first.progress where step.sent > step.total / 3 {
                first.cancel()
                break
            }
            await #expect(throws: CancellationError.self) { try await first.value }
            #expect(client.resumptions.entries.count == 1)
            let second = client.upload(fileAt: photo, to: note.id)
            var resumedFrom: Int64 = 0
            for await step in second.progress { resumedFrom = max(resumedFrom, step.resumedFrom) }
            let attachment = try await second.value
            #expect(resumedFrom > 0, "the second upload started again from 0")
            #expect(attachment.hash == (try Self.sha256(of: photo)))
            #expect(try await client.attachments(of: note.id).count == 1)
            #expect(client.resumptions.entries.isEmpty)
        }
    }

    @Test("re-importing 50 photos the server already holds sends under 1 % of their bytes, and each becomes a byte-identical attachment")
    func reimportSendsNoKnownBytes() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let photos = try FileManager.default.contentsOfDirectory(atPath: try Corpus.file("fifty").path(percentEncoded: false))
            .filter { $0.hasSuffix(".jpg") }.sorted().map { try Corpus.file("fifty/" + $0) }
        #expect(photos.count == 50)
        // The first import, already on the server.
        let store = try await fixture.store()
        let first = try await store.createNote(title: "camera roll")
        for photo in photos { _ = try await store.addAttachment(to: first.id, fromFile: photo) }
        let total = try photos.reduce(Int64(0)) { $0 + Int64(try Data(contentsOf: $1).count) }
        try await LiveServerTests.serve(fixture) { port, _ in
            let client = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: Self.token)
            let note = try await client.createNote(title: "camera roll, again")
            for photo in photos {
                let attachment = try await client.upload(fileAt: photo, to: note.id).value
                #expect(attachment.hash == (try Self.sha256(of: photo)))
            }
            #expect(try await client.attachments(of: note.id).count == 50)
            // What the server received in upload bodies.
            let (_, text) = try await client.send(.GET, "/metrics")
            let received = String(buffer: text).split(separator: "\n")
                .filter { $0.hasPrefix("attach_upload_bytes_total") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0, +)
            #expect(received < Double(total) / 100, "\(received) of \(total) bytes were sent again")
        }
    }

    @Test("a full image arrives with progress; cancelled midway it stops and leaves no file")
    func fullImageWithProgressAndCancel() async throws {
        try await Self.withClient(bandwidth: 4 << 20) { client, _ in
            let note = try await client.createNote(title: "Viewer")
            let photo = try Corpus.file("special/large-16mb.jpg")
            let attachment = try await client.upload(fileAt: photo, to: note.id).value
            let folder = try TemporaryDirectory("client-download")
            let cancelled = folder.appending("cancelled.jpg")
            let download = client.download(attachment.id, to: cancelled)
            for await step in download.progress where step.received > 0 {
                download.cancel()
                break
            }
            await #expect(throws: CancellationError.self) { try await download.value }
            #expect(!FileManager.default.fileExists(atPath: cancelled.path) && !FileManager.default.fileExists(atPath: cancelled.path + ".partial"))

            let fast = AttachmentClient(server: client.server, token: Self.token)
            let whole = fast.download(attachment.id, to: folder.appending("whole.jpg"))
            var last = DownloadProgress(received: 0, total: 0)
            for await step in whole.progress { last = step }
            let file = try await whole.value
            #expect(last.received == attachment.byteCount && last.total == attachment.byteCount)
            #expect(try Self.sha256(of: file) == attachment.hash)
        }
    }

    @Test("thumbnails wait their turn, visible before prefetch; one whose task is cancelled while waiting is never asked for")
    func thumbnailPrioritiesAndCancellation() async throws {
        try await Self.withClient(thumbnailConcurrency: 1) { client, port in
            let note = try await client.createNote(title: "Gallery")
            let photo = try await client.upload(fileAt: try Corpus.file("good/Dune.jpg"), to: note.id).value
            // The test holds the one slot, so every request below waits.
            try await client.thumbnailSlots.acquire(id: 1)
            let finished = Finished()
            let prefetch = Task {
                _ = try await client.thumbnail(of: photo.id, size: 400, priority: .prefetch)
                await finished.add("prefetch")
            }
            let abandoned = Task { try await client.thumbnail(of: photo.id, size: 800, priority: .prefetch) }
            let visible = Task {
                _ = try await client.thumbnail(of: photo.id, size: 200, priority: .visible)
                await finished.add("visible")
            }
            for _ in 0..<500 where client.thumbnailSlots.queueDepth < 3 { try await Task.sleep(for: .milliseconds(10)) }
            abandoned.cancel()
            await #expect(throws: CancellationError.self) { try await abandoned.value }
            client.thumbnailSlots.release()
            try await visible.value
            try await prefetch.value
            #expect(await finished.names == ["visible", "prefetch"])
            // The server saw two thumbnail requests, never the abandoned one.
            let metrics = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: Self.token)
            let (_, text) = try await metrics.send(.GET, "/metrics")
            let requests = String(buffer: text).split(separator: "\n")
                .filter { $0.hasPrefix("attach_thumbnail_requests_total") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0, +)
            #expect(requests == 2)
        }
    }
}

/// The order in which thumbnail requests finished.
private actor Finished {
    var names: [String] = []
    func add(_ name: String) { names.append(name) }
}

/// The client against a hostile server: what the server says is input like any other.
@Suite("AttachmentClient against a hostile server", .timeLimit(.minutes(3)))
struct AttachmentClientHostileServerTests {
    /// A server whose upload creation answers `location`, and whose attachment listing names
    /// ids that are paths; the bodies it would serve elsewhere are never asked for.
    static func hostile(location: String) -> some ApplicationProtocol {
        let router = Router()
        let asked = "/api/notes/0f0e8d0c-0000-4000-8000-000000000001/attachments"
        router.post("api/uploads") { _, _ in Response(status: .created, headers: [.location: location]) }
        router.get(RouterPath(asked)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"attachments": "not a list"}"#)))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test("an upload address on another host, or one that climbs out of /api/uploads, is refused before any byte is sent",
          arguments: ["http://evil.example/api/uploads/0123456789abcdef0123456789abcdef", "/api/uploads/../notes",
                      "/api/uploads/0123456789abcdef0123456789abcdef/../../notes", "/api/notes", ""])
    func hostileUploadAddress(location: String) async throws {
        try await Self.hostile(location: location).test(.live) { server in
            let port = try #require(server.port)
            let client = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!)
            let upload = client.upload(fileAt: try Corpus.file("good/Dune.jpg"), to: "0f0e8d0c-0000-4000-8000-000000000001")
            await #expect(throws: AttachmentClientError.self) { try await upload.value }
            #expect(client.resumptions.entries.isEmpty)
        }
    }

    @Test("an answer that is not what the document promises is a typed error, and an id that is a path is refused")
    func malformedAnswers() async throws {
        try await Self.hostile(location: "").test(.live) { server in
            let port = try #require(server.port)
            let client = AttachmentClient(server: URL(string: "http://127.0.0.1:\(port)")!)
            do {
                _ = try await client.attachments(of: "0f0e8d0c-0000-4000-8000-000000000001")
                Issue.record("a listing that is not a list was accepted")
            } catch AttachmentClientError.unexpectedAnswer {}
            for id in ["../../metrics", "a/b", "", "0f0e8d0c?x=1"] {
                await #expect(throws: AttachmentClientError.self) { try await client.attachment(id) }
            }
        }
    }
}
