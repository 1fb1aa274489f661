@testable import AttachmentServer
@testable import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The API keeps ``RecordRules``: what every peer would refuse is a 400 naming the field, never
/// a stored record that cannot sync; nothing a client sends makes it answer 500; and search text
/// never breaks the query.
@Suite("The API accepts only what every peer accepts", .timeLimit(.minutes(5)))
struct RecordRulesAPITests {
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func message(_ response: TestResponse) -> String {
        struct Document: Decodable {
            struct Detail: Decodable { let code: String; let message: String }
            let error: Detail
        }
        return (try? JSONDecoder().decode(Document.self, from: Data(buffer: response.body)))?.error.message ?? String(buffer: response.body)
    }

    @Test("a title with a line break, a 5,000-byte title and a 364-byte file name get a 400 naming the field, and nothing is stored")
    func refusedWithFieldNamed() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let broken = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers,
                                                  body: JSON.body(["title": "one\ntwo"]))
            #expect(broken.status == .badRequest)
            #expect(Self.message(broken).hasPrefix("title contains a line break"), "\(Self.message(broken))")
            let long = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers,
                                                body: JSON.body(["title": String(repeating: "t", count: 5000)]))
            #expect(long.status == .badRequest)
            #expect(Self.message(long) == "title is 5000 bytes, more than 4096")
            let note = try await client.createNote(title: "kept")
            let edit = try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers,
                                                body: JSON.body(["title": "a\u{85}b"]))
            #expect(edit.status == .badRequest)
            let name = String(repeating: "n", count: 360) + ".jpg"
            let raw = try await client.execute(uri: "/api/notes/\(note.id)/attachments?filename=\(Self.encoded(name))", method: .post,
                                               headers: [.contentType: "application/octet-stream"], body: ByteBuffer(string: "bytes"))
            #expect(raw.status == .badRequest)
            #expect(Self.message(raw) == "filename is 364 bytes, more than 255")
            let form = Multipart(fields: [("file", "invoice\u{202E}gpj.exe", Data("bytes".utf8))])
            let multipart = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: form.headers, body: form.body)
            #expect(multipart.status == .badRequest)
            #expect(Self.message(multipart) == "filename contains a bidirectional formatting character (U+202E)")
            var tus = ResumableUploadAPITests.tus
            tus[TusProtocol.uploadLength] = "5"
            tus[TusProtocol.uploadMetadata] = ResumableUploadAPITests.metadata(note: note.id, filename: "a\u{9B}31m.jpg")
            let upload = try await client.execute(uri: "/api/uploads", method: .post, headers: tus)
            #expect(upload.status == .badRequest)
            #expect(Self.message(upload) == "filename contains a control character (U+009B)")
        }
        let store = try await fixture.store()
        #expect(try await store.notes().map(\.title) == ["kept"])
        #expect(try await store.allAttachments().isEmpty)
    }

    @Test("a title, body and file name the API accepts always sync to a peer; what it refuses gets a 4xx, never a 500 (seeded property test)")
    func acceptedRecordsSync() async throws {
        let fixture = try ServerFixture()
        let counts = try await fixture.test { client in
            var generator = SplitMix(seed: 2028)
            var counts = (accepted: 0, refused: 0)
            for _ in 0..<150 {
                let (title, body, name) = (HostileText.random(using: &generator), HostileText.random(using: &generator),
                                           HostileText.random(using: &generator))
                let created = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers,
                                                       body: JSON.body(["title": title, "body": body]))
                #expect(created.status == .created || created.status == .badRequest, "\(created.status): \(Self.message(created))")
                guard created.status == .created else { counts.refused += 1; continue }
                counts.accepted += 1
                let note = try JSON.decode(NoteResource.self, created)
                let upload = try await client.execute(uri: "/api/notes/\(note.id)/attachments?filename=\(Self.encoded(name))", method: .post,
                                                      headers: [.contentType: "application/octet-stream"], body: ByteBuffer(string: "x" + name))
                #expect(upload.status == .created || (400..<500).contains(upload.status.code), "\(upload.status): \(Self.message(upload))")
                if upload.status == .created { counts.accepted += 1 } else { counts.refused += 1 }
            }
            return counts
        }
        #expect(counts.accepted > 30 && counts.refused > 30, "both sides exercised: \(counts)")
        let store = try await fixture.store()
        let peer = try await StoreFixture("api-property-peer")
        let batch = try await store.changes(since: 0, limit: 1000)
        let validation = SyncChangeValidation(limits: PeerInputLimits())
        for change in batch.changes {
            let problem = validation.problem(with: change)
            #expect(problem == nil, "the API stored what a peer refuses: \(problem ?? "")")
        }
        let report = try await peer.store.apply(batch)
        #expect(report.invalid == 0, "\(report.problems)")
    }

    @Test("search text with any scalar class next to FTS syntax never answers 500 over HTTP")
    func searchNeverFails() async throws {
        try await ServerFixture().test { client in
            _ = try await client.createNote(title: "garden photos")
            var failures: [String] = []
            for (index, query) in SearchFuzzQueries.queries.enumerated() where index % 3 == 0 {
                let response = try await client.execute(uri: "/api/notes?q=\(Self.encoded(query))", method: .get)
                if response.status != .ok { failures.append("\(query.debugDescription): \(response.status)") }
            }
            #expect(failures.isEmpty, "\(failures.prefix(5))")
        }
    }
}

/// The search fuzz's queries: every named class of ``HostileText`` in front of, behind and
/// around every character and word of FTS5's and `tsquery`'s syntax.
enum SearchFuzzQueries {
    static let syntax = ["\"", "*", "(", ")", ":", "^", "-", "NEAR", "AND", "OR", "NOT", "'", ":*"]
    static let queries: [String] = {
        var queries: [String] = []
        for neighbour in HostileText.classes.map(\.text) {
            for piece in syntax {
                let around: String = neighbour + piece + neighbour
                let inWord: String = "a" + neighbour + piece + "b"
                queries += [neighbour + piece, piece + neighbour, around, inWord]
            }
        }
        return queries
    }()
}
