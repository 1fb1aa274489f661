@testable import AttachmentServer
import AttachmentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("Security", .timeLimit(.minutes(2)))
struct SecurityTests {
    @Test("pages and API answers carry a CSP without inline script, and nosniff", arguments: ["/", "/api/notes", "/api/nothing", "/health"])
    func securityHeadersEverywhere(path: String) async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: path, method: .get)
            let policy = try #require(response.headers[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(!policy.contains("unsafe-eval"))
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("with a token, writes and reads without it are 401")
    func tokenGuardsWritesAndReads() async throws {
        try await ServerFixture(token: "s3cret").test { client in
            let anonymous = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers, body: JSON.body(["title": "x"]))
            #expect(anonymous.status == .unauthorized)
            #expect(JSON.errorCode(anonymous) == "unauthorized")
            var wrong = JSON.headers
            wrong[.authorization] = "Bearer s3cre7"
            #expect(try await client.execute(uri: "/api/notes", method: .post, headers: wrong, body: JSON.body(["title": "x"])).status == .unauthorized)

            var right = JSON.headers
            right[.authorization] = "Bearer s3cret"
            let note = try await client.createNote(headers: right)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get, headers: [.authorization: "Bearer s3cret"]).status == .ok)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .delete).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers, body: JSON.body(["title": "y"])).status == .unauthorized)
            let upload = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=a.jpg", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: "x"))
            #expect(upload.status == .unauthorized)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .delete, headers: [.authorization: "Bearer s3cret"]).status == .noContent)
        }
    }

    @Test("with a token, every sync read is 401 without it and 200 with it")
    func tokenGuardsSyncReads() async throws {
        let fixture = try ServerFixture(token: "s3cret")
        let store = try await fixture.store()
        let note = try await store.createNote(title: "synced")
        let blob = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg")).blobHash
        try await fixture.test { client in
            let reads: [(String, HTTPRequest.Method)] = [
                ("/sync/changes?since=0", .get), ("/sync/status", .get),
                ("/blobs/sha256/\(blob.rawValue)", .get), ("/blobs/sha256/\(blob.rawValue)", .head),
            ]
            for (path, method) in reads {
                let anonymous = try await client.execute(uri: path, method: method)
                #expect(anonymous.status == .unauthorized, "\(method) \(path)")
                #expect(anonymous.body.readableBytes == 0 || JSON.errorCode(anonymous) == "unauthorized")
                let wrong = try await client.execute(uri: path, method: method, headers: [.authorization: "Bearer s3cre7"])
                #expect(wrong.status == .unauthorized, "\(method) \(path)")
                let right = try await client.execute(uri: path, method: method, headers: [.authorization: "Bearer s3cret"])
                #expect(right.status == .ok, "\(method) \(path)")
            }
            let bytes = try await client.execute(uri: "/blobs/sha256/\(blob.rawValue)", method: .get, headers: [.authorization: "Bearer s3cret"])
            #expect(Data(buffer: bytes.body) == (try Data(contentsOf: try Corpus.file("special/baseline.jpg"))))
        }
    }

    @Test("listening beyond loopback without a token is refused with a reason", arguments: ["0.0.0.0", "192.168.1.10", "::"])
    func publicBindNeedsToken(host: String) throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        #expect(throws: ServerConfiguration.Problem.tokenRequired(host: host)) { try configuration.validate() }
        #expect(ServerConfiguration.Problem.tokenRequired(host: host).description.contains("--token"))
        configuration.token = "0123456789abcdef"
        try configuration.validate()
    }

    @Test("listening beyond loopback with a token or sync token shorter than 16 bytes is refused; on loopback it is not",
          arguments: ["0.0.0.0", "192.168.1.10", "::"])
    func publicBindNeedsLongToken(host: String) throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.token = "t"
        #expect(throws: ServerConfiguration.Problem.tokenTooShort(host: host, option: "--token", bytes: 1)) { try configuration.validate() }
        configuration.token = "0123456789abcde"  // 15 bytes
        #expect(throws: ServerConfiguration.Problem.tokenTooShort(host: host, option: "--token", bytes: 15)) { try configuration.validate() }
        configuration.token = "0123456789abcdef"
        configuration.syncToken = "sync"
        #expect(throws: ServerConfiguration.Problem.tokenTooShort(host: host, option: "--sync-token", bytes: 4)) { try configuration.validate() }
        configuration.syncToken = "sync-0123456789ab"
        try configuration.validate()
        configuration.host = "127.0.0.1"
        configuration.token = "t"
        configuration.syncToken = "s"
        try configuration.validate()
    }

    @Test("loopback addresses need no token", arguments: ["127.0.0.1", "localhost", "::1", "127.1.2.3"])
    func loopbackNeedsNoToken(host: String) throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        try configuration.validate()
    }

    @Test("a note title is escaped in the page")
    func pagesEscapeUserText() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote(title: "<script>alert(1)</script>", body: "\"><img src=x onerror=alert(2)>")
            for path in ["/", "/notes/\(note.id)"] {
                let html = String(buffer: try await client.execute(uri: path, method: .get).body)
                #expect(!html.contains("<script>alert"))
                #expect(!html.contains("<img src=x"))
                #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            }
        }
    }
}

@Suite("Cross-site writes", .timeLimit(.minutes(3)))
struct CrossSiteWriteTests {
    @Test("a write a browser sends from another site is refused; same-site and non-browser writes pass")
    func crossSiteWritesAreRefused() async throws {
        try await ServerFixture().test { client in
            var crossSite = JSON.headers
            crossSite[.origin] = "https://evil.example"
            let refused = try await client.execute(uri: "/api/notes", method: .post, headers: crossSite, body: JSON.body(["title": "x"]))
            #expect(refused.status == .forbidden)
            #expect(JSON.errorCode(refused) == "cross_origin")
            var fetchSite = JSON.headers
            fetchSite[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            #expect(try await client.execute(uri: "/api/notes", method: .post, headers: fetchSite).status == .forbidden)

            var sameSite = JSON.headers
            sameSite[.origin] = "http://localhost"
            let note = try await client.createNote(headers: sameSite)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get, headers: crossSite).status == .ok)
        }
    }
}
