@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Requests written to hurt: damaged and dangerous files, lying headers, traversal in every
/// path parameter, absurd numbers, oversized headers. The server must refuse them with a 4xx
/// (never a 5xx), read nothing outside its store, and leave the store clean.
@Suite("Hostile input", .timeLimit(.minutes(3)))
struct HostileInputTests {
    @Test("every bad corpus file is stored or refused with a 4xx, and has no thumbnail", arguments: Corpus.badNames)
    func badFilesNeverFailTheServer(name: String) async throws {
        let fixture = try ServerFixture()
        let data = try Data(contentsOf: try Corpus.file("bad/\(name)"))
        try await fixture.test { client in
            let note = try await client.createNote()
            let upload = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=\(name)", method: .post,
                headers: [.contentType: "image/jpeg"], body: ByteBuffer(data: data))
            #expect(upload.status == .created || (400..<500).contains(upload.status.code), "\(upload.status)")
            guard upload.status == .created else { return }
            let attachment = try JSON.decode(AttachmentResource.self, upload)
            #expect(attachment.byteCount == Int64(data.count))
            let thumbnail = try await client.execute(uri: "/api/attachments/\(attachment.id)/thumbnail?size=200", method: .get)
            #expect((400..<500).contains(thumbnail.status.code), "\(thumbnail.status)")
            let original = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
            #expect(original.status == .ok)
            #expect(Data(buffer: original.body) == data)
        }
        #expect(try await fixture.store().verify().isClean)
    }

    @Test("the declared Content-Type is ignored: the media type comes from the bytes",
          arguments: [("bad/script.svg", "image/jpeg", "image/svg+xml"), ("special/baseline.jpg", "text/html", "image/jpeg"),
                      ("special/photo.png", "image/jpeg", "image/png"), ("bad/random.jpg", "image/jpeg", "application/octet-stream")])
    func contentTypeIsSniffed(path: String, declared: String, sniffed: String) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload(path, to: note.id, contentType: declared)
            #expect(attachment.mediaType == sniffed)
            if sniffed != "image/jpeg" && sniffed != "image/png" { #expect(attachment.image == nil) }
        }
    }

    @Test("a Content-Type or Content-Disposition with an unterminated quote is a 4xx, and the server keeps serving", arguments: [
        #"multipart/form-data; boundary="unterminated"#, #"multipart/form-data; boundary=""#, #"application/json; charset="utf-8"#,
        "multipart/form-data; boundary=b|part",
    ])
    func unterminatedQuotesInHeaders(contentType: String) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let partHeader = contentType.hasSuffix("|part")
            let type = partHeader ? String(contentType.dropLast(5)) : contentType
            let body = partHeader ? "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\r\n\r\nxyz\r\n--b--" : "{}"
            for uri in ["/api/notes/\(note.id)/attachments", "/api/notes"] {
                let response = try await client.execute(uri: uri, method: .post, headers: [.contentType: type],
                                                        body: ByteBuffer(string: body))
                #expect((400..<500).contains(response.status.code) || response.status == .created, "\(uri) with \(contentType): \(response.status)")
            }
            let alive = try await client.execute(uri: "/api/notes", method: .get)
            #expect(alive.status == .ok)
        }
    }

    @Test("absurd thumbnail sizes are 400s",
          arguments: ["99999999999999999999", "0", "-0", "1e3", "200.0", "0x200", "%00", "", "200%00", " 200", "2147483648"])
    func absurdSizesAreRefused(size: String) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(photo.id)/thumbnail?size=\(size)", method: .get)
            #expect(response.status == .badRequest, "size=\(size) answered \(response.status)")
        }
    }

    /// Identifiers that try to leave the store, or to smuggle a NUL into a path.
    static let traversals = [
        "..%2f..%2f..%2fetc%2fpasswd", "..%2F..%2Fcatalog.sqlite", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "..", "%2e%2e",
        "%00", "x%00y", "%2fetc%2fpasswd", "..%5c..%5cwindows", "00000000-0000-0000-0000-00000000000%00",
        "..%2f" + String(repeating: "a", count: 31), String(repeating: "%2e%2e%2f", count: 50) + "etc%2fpasswd",
    ]

    /// Every route with a path parameter, `{}` standing for it.
    static let parameterisedRoutes = [
        "/api/notes/{}", "/api/notes/{}/attachments", "/api/attachments/{}", "/api/attachments/{}/original",
        "/api/attachments/{}/thumbnail?size=200", "/blobs/sha256/{}", "/static/{}", "/notes/{}",
    ]

    @Test("traversal in any path parameter is a 400 or 404 and reads nothing outside the store", arguments: Self.traversals)
    func traversalIsRefused(parameter: String) async throws {
        try await ServerFixture().test { client in
            for route in Self.parameterisedRoutes {
                let uri = route.replacingOccurrences(of: "{}", with: parameter)
                let response = try await client.execute(uri: uri, method: .get)
                #expect([400, 404].contains(response.status.code), "GET \(uri) answered \(response.status)")
                let body = String(buffer: response.body)
                #expect(!body.contains("root:"), "GET \(uri) leaked /etc/passwd")
                #expect(!body.contains("SQLite format"), "GET \(uri) leaked the catalog")
            }
            for (method, route) in [(HTTPRequest.Method.delete, "/api/attachments/{}"), (.put, "/api/attachments/{}/data"),
                                    (.patch, "/api/notes/{}"), (.delete, "/api/notes/{}"), (.post, "/api/notes/{}/attachments?filename=x")] {
                let uri = route.replacingOccurrences(of: "{}", with: parameter)
                let headers: HTTPFields = method == .patch ? JSON.headers : [.contentType: "image/jpeg"]
                let body = method == .patch ? JSON.body(["title": "x"]) : ByteBuffer(string: "hello")
                let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
                #expect([400, 404].contains(response.status.code), "\(method) \(uri) answered \(response.status)")
            }
        }
    }

    @Test("a raw filename that is a path is kept as a name only and never used as one",
          arguments: ["..%2f..%2fevil.jpg", "%2fetc%2fpasswd", "a%00b.jpg", "..", "%2e%2e%2f"])
    func filenamesAreNotPaths(filename: String) async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote()
            let data = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=\(filename)", method: .post,
                headers: [.contentType: "image/jpeg"], body: ByteBuffer(data: data))
            #expect(response.status == .created || response.status == .badRequest, "\(response.status)")
        }
        let directory = fixture.directory.url
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "evil.jpg").path(percentEncoded: false)))
        #expect(try await fixture.store().verify().isClean)
    }
}

/// Hostile input that only shows over a real socket: lying lengths, bodies cut off, huge headers.
@Suite("Hostile input over real connections", .timeLimit(.minutes(3)))
struct HostileConnectionTests {
    @Test("a Content-Length longer than the body sent before hanging up stores nothing and leaves the store clean")
    func overstatedLengthStoresNothing() async throws {
        let fixture = try ServerFixture()
        let note = try await fixture.store().createNote(title: "overstated")
        let data = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        try await LiveServerTests.serve(fixture) { port, _ in
            try await RawHTTPConnection.with(port: port) { write, _ in
                try await write(LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=long.jpg",
                                                            ["Content-Type: image/jpeg", "Content-Length: \(data.count * 2)"]))
                try await write(data)
            }
            let health = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("GET", "/health", []))
                return try await read()
            }
            #expect(health?.status == 200)
        }
        let store = try await fixture.store()
        #expect(try await store.attachments(of: note.id).isEmpty)
        #expect(Files.tree(fixture.configuration.storeDirectory.appending(path: "tmp")).isEmpty)
        #expect(try await store.verify().isClean)
    }

    @Test("a Content-Length shorter than the body stores exactly the declared bytes or refuses them, never a 5xx")
    func understatedLengthTakesOnlyDeclaredBytes() async throws {
        let fixture = try ServerFixture()
        let note = try await fixture.store().createNote(title: "understated")
        let data = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        let declared = data.count / 2
        try await LiveServerTests.serve(fixture) { port, _ in
            let response = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=short.jpg",
                                                            ["Content-Type: image/jpeg", "Content-Length: \(declared)"]))
                try await write(data)
                return try await read()
            }
            // The answer comes after the handler has finished with the body.
            let status = try #require(response?.status)
            #expect(status == 201 || (400..<500).contains(status), "\(status)")
            let store = try await fixture.store()
            let attachments = try await store.attachments(of: note.id)
            if status == 201 {
                #expect(attachments.count == 1)
                let original = try await store.original(of: attachments[0].id)
                #expect(try Data(contentsOf: original.fileURL) == data.prefix(declared))
            } else {
                #expect(attachments.isEmpty)
            }
        }
        #expect(try await fixture.store().verify().isClean)
    }

    @Test("a client that stalls mid-upload is disconnected after the idle timeout and its upload leaves nothing")
    func stalledUploadIsDisconnected() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.idleTimeout = .seconds(1)
        let note = try await fixture.store().createNote(title: "stalled")
        let data = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        try await LiveServerTests.serve(fixture) { port, _ in
            let response: RawHTTPConnection.Response?
            do {
                response = try await RawHTTPConnection.with(port: port) { write, read in
                    try await write(LiveServerTests.requestHead("POST", "/api/notes/\(note.id)/attachments?filename=stalled.jpg",
                                                                ["Content-Type: image/jpeg", "Content-Length: \(data.count)"]))
                    try await write(data.prefix(data.count / 2))
                    return try await read()  // returns once the server closes the connection
                }
            } catch where RawHTTPConnection.isDisconnection(error) {
                // On a loaded machine the second write may come after the 1 s timeout closed it.
                response = nil
            }
            #expect(response == nil || (400..<500).contains(response!.status))
        }
        let store = try await fixture.store()
        #expect(try await store.attachments(of: note.id).isEmpty)
        #expect(Files.tree(fixture.configuration.storeDirectory.appending(path: "tmp")).isEmpty)
        #expect(try await store.verify().isClean)
    }

    @Test("clients sending a byte a second hold no worker: other requests are answered meanwhile")
    func slowClientsHoldNoWorker() async throws {
        let fixture = try ServerFixture()
        try await LiveServerTests.serve(fixture) { port, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await RawHTTPConnection.with(port: port) { write, _ in
                            for byte in Data("GET /heal".utf8) {
                                try await write(Data([byte]))
                                try await Task.sleep(for: .seconds(1))
                            }
                        }
                    }
                }
                try await Task.sleep(for: .seconds(1))
                for _ in 0..<20 {
                    let health = try await RawHTTPConnection.with(port: port) { write, read in
                        try await write(LiveServerTests.requestHead("GET", "/health", []))
                        return try await read()
                    }
                    #expect(health?.status == 200)
                }
                try await group.waitForAll()
            }
        }
    }

    /// NIO's HTTP parser refuses a header block over 80 KiB.
    @Test("request headers over 80 KiB are refused with a 400, and the server keeps serving",
          arguments: [100 << 10, 1 << 20])
    func oversizedHeadersAreRefused(size: Int) async throws {
        let fixture = try ServerFixture()
        try await LiveServerTests.serve(fixture) { port, _ in
            let response = try? await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("GET", "/health", ["X-Padding: " + String(repeating: "a", count: size)]))
                return try await read()
            }
            // The server may close before the client has finished writing; if an answer came, it is the 400.
            if let status = response?.status {
                #expect(status == 400, "\(status)")
            }
            let health = try await RawHTTPConnection.with(port: port) { write, read in
                try await write(LiveServerTests.requestHead("GET", "/health", []))
                return try await read()
            }
            #expect(health?.status == 200)
        }
    }
}

// 10,000 commits through the API took 300 s in a full CI run (pass 1 runs sixteen cases at once on two cores).
@Suite("Many notes", .timeLimit(.minutes(10)))
struct ManyNotesTests {
    static let count = 10_000

    @Test("10,000 tiny notes are created and listed exactly once each through paging")
    func tenThousandNotesPageCompletely() async throws {
        try await ServerFixture().test { client in
            let created = try await withThrowingTaskGroup(of: [String].self) { group in
                for creator in 0..<4 {
                    group.addTask {
                        var ids: [String] = []
                        for index in stride(from: creator, to: Self.count, by: 4) {
                            let response = try await client.execute(
                                uri: "/api/notes", method: .post, headers: JSON.headers, body: JSON.body(["title": "n\(index)"]))
                            #expect(response.status == .created)
                            ids.append(try JSON.decode(NoteResource.self, response).id)
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.formUnion($1) }
            }
            #expect(created.count == Self.count)

            var listed: [String] = []
            var address: String? = "/api/notes?limit=200"
            while let uri = address {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                let page = try JSON.decode(NotePage.self, response)
                listed += page.notes.map(\.id)
                address = page.notes.isEmpty ? nil : page.next
            }
            #expect(listed.count == Self.count)
            #expect(Set(listed) == created)
        }
    }
}
