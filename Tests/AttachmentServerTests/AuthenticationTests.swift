@testable import AttachmentServer
import AttachmentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Every operation of the OpenAPI document, with its path filled in from real records.
struct DocumentedOperation: CustomStringConvertible, Sendable {
    let method: HTTPRequest.Method
    /// The path with every `{parameter}` replaced.
    let path: String
    /// The statuses the document lists for it.
    let statuses: Set<Int>
    /// Whether the document marks it `security: []` (open to anyone).
    let isPublic: Bool

    var description: String { "\(method) \(path)" }

    /// Every documented operation, with note, attachment and blob ids from `ids`.
    static func all(ids: [String: String]) async throws -> [DocumentedOperation] {
        let paths = try #require(try await OpenAPIDocumentTests.document()["paths"] as? [String: Any])
        var operations: [DocumentedOperation] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            for (key, value) in try #require(item as? [String: Any]) {
                guard let method = HTTPRequest.Method(key.uppercased()), key != "parameters",
                      let operation = value as? [String: Any] else { continue }
                let responses = try #require(operation["responses"] as? [String: Any])
                let security = operation["security"] as? [Any]
                var path = template
                for (name, value) in ids { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
                operations.append(DocumentedOperation(method: method, path: path, statuses: Set(responses.keys.compactMap(Int.init)),
                                                      isPublic: security?.isEmpty == true))
            }
        }
        return operations
    }
}

@Suite("Authentication: nobody reads without the token", .timeLimit(.minutes(3)))
struct AuthenticationTests {
    static let token = "correct-horse-battery-staple"

    /// A server with a token over a store holding a note with one photo; the ids for the
    /// document's path parameters (an attachment's `{id}` where the path is an attachment's).
    static func seeded(_ fixture: ServerFixture) async throws -> (note: String, attachment: String, hash: String) {
        let store = try await fixture.store()
        let note = try await store.createNote(title: "private")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("special/baseline.jpg"))
        return (note.id.rawValue, attachment.id.rawValue, attachment.blobHash.rawValue)
    }

    static func operations(_ seeded: (note: String, attachment: String, hash: String)) async throws -> [DocumentedOperation] {
        try await DocumentedOperation.all(ids: ["hash": seeded.hash, "name": "app.js"]).map { operation in
            let id = operation.path.hasPrefix("/api/attachments/") ? seeded.attachment : seeded.note
            return DocumentedOperation(method: operation.method, path: operation.path.replacingOccurrences(of: "{id}", with: id),
                                       statuses: operation.statuses, isPublic: operation.isPublic)
        }
    }

    /// A small real photo to upload.
    static var photo: ByteBuffer {
        ByteBuffer(bytes: (try? Data(contentsOf: try Corpus.file("good/Aqua.jpg"))) ?? Data())
    }

    /// A body the operation accepts, so that with credentials it answers as documented.
    static func body(for operation: DocumentedOperation) -> (HTTPFields, ByteBuffer?) {
        let photo: HTTPFields = [.contentType: "image/jpeg"]
        switch (operation.method, operation.path) {
        case (.post, "/login"): return ([.contentType: "application/x-www-form-urlencoded"], ByteBuffer(string: "token=wrong"))
        case (.put, _): return (photo, Self.photo)
        case (.post, let path) where path.hasSuffix("/attachments"): return (photo, Self.photo)
        case (.post, _), (.patch, _): return (JSON.headers, JSON.body(["title": "t"]))
        default: return ([:], nil)
        }
    }

    @Test("without credentials every operation of the document is refused (401, or the login page for pages); /health and the login page answer")
    func everyOperationNeedsCredentials() async throws {
        var fixture = try ServerFixture(token: Self.token)
        let ids = try await Self.seeded(fixture)
        fixture.configuration.logger.logLevel = .critical
        let operations = try await Self.operations(ids)
        #expect(operations.count >= 20)
        try await fixture.test { client in
            for operation in operations {
                let (headers, body) = Self.body(for: operation)
                let response = try await client.execute(uri: operation.path, method: operation.method, headers: headers, body: body)
                if operation.isPublic {
                    #expect(response.status.code != 401 || operation.path == "/login", "\(operation) is public")
                } else if operation.method == .get, ["/", "/notes-page", "/notes/\(ids.note)", "/notes/\(ids.note)/gallery", "/trash"].contains(operation.path) {
                    #expect(response.status == .seeOther, "\(operation)")
                    #expect(response.headers[.location]?.hasPrefix("/login?next=") == true, "\(operation)")
                } else {
                    #expect(response.status == .unauthorized, "\(operation) answered \(response.status) without credentials")
                    #expect(JSON.errorCode(response) == "unauthorized", "\(operation)")
                    #expect(!String(buffer: response.body).contains("private"), "\(operation) leaked the note")
                }
                #expect(operation.statuses.contains(Int(response.status.code)), "\(operation): \(response.status) is not documented")
            }
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/static/app.css", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/static/app.js", method: .get).status == .unauthorized)
        }
    }

    @Test("with the bearer token or a session cookie every operation answers as the document says", arguments: [false, true])
    func everyOperationAnswersWithCredentials(useSession: Bool) async throws {
        var fixture = try ServerFixture(token: Self.token)
        let ids = try await Self.seeded(fixture)
        fixture.configuration.logger.logLevel = .critical
        // Deleting first would leave later operations nothing to act on.
        let operations = try await Self.operations(ids).sorted { ($0.method == .delete ? 1 : 0, $0.path) < ($1.method == .delete ? 1 : 0, $1.path) }
        try await fixture.test { client in
            var credentials: HTTPFields = [.authorization: "Bearer \(Self.token)"]
            if useSession {
                credentials = [.cookie: try await Self.logIn(client)]
            }
            for operation in operations where !operation.isPublic && operation.path != "/logout" {
                var (headers, body) = Self.body(for: operation)
                headers.append(contentsOf: credentials)
                let response = try await client.execute(uri: operation.path, method: operation.method, headers: headers, body: body)
                #expect(![401, 403, 303].contains(Int(response.status.code)), "\(operation) refused valid credentials: \(response.status)")
                #expect(operation.statuses.contains(Int(response.status.code)), "\(operation): \(response.status) is not documented")
            }
        }
    }

    @Test("other spellings of a protected path never reach a handler without credentials",
          arguments: ["//sync/changes", "/./sync/changes", "/sync%2Fchanges", "//api/notes", "/api//notes", "/api/./notes",
                      "/api/%6Eotes", "/API/notes", "//metrics", "/sync/changes/", "/blobs//sha256/x", "//"])
    func pathVariantsAreGuarded(path: String) async throws {
        let fixture = try ServerFixture(token: Self.token)
        _ = try await Self.seeded(fixture)
        try await fixture.test { client in
            let response = try await client.execute(uri: path, method: .get)
            #expect([401, 404, 303, 400].contains(Int(response.status.code)), "\(path) answered \(response.status)")
            let text = String(buffer: response.body)
            #expect(!text.contains("private") && !text.contains("\"changes\"") && !text.contains("attach_"), "\(path) leaked: \(text.prefix(200))")
        }
    }

    /// Logs in through the form; returns the `Cookie` header value for later requests.
    static func logIn(_ client: some TestClientProtocol, next: String = "/") async throws -> String {
        let response = try await client.execute(
            uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: "token=\(token)&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"))
        #expect(response.status == .seeOther)
        let setCookie = try #require(response.headers[.setCookie])
        return try #require(setCookie.split(separator: ";").first.map(String.init))
    }

    @Test("logging in gives an HttpOnly, SameSite=Strict cookie that opens the pages and the API; logging out ends it")
    func loginSessionLifecycle() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let ids = try await Self.seeded(fixture)
        try await fixture.test { client in
            let page = try await client.execute(uri: "/login?next=/notes/\(ids.note)", method: .get)
            #expect(page.status == .ok)
            let form = String(buffer: page.body)
            #expect(form.contains("type=\"password\"") && !form.contains("<script"))

            let refused = try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                   body: ByteBuffer(string: "token=guess&next=/"))
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.setCookie] == nil)

            let response = try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(Self.token)&next=%2Fnotes%2F\(ids.note)"))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/notes/\(ids.note)")
            let setCookie = try #require(response.headers[.setCookie])
            #expect(setCookie.hasPrefix("attach_session="))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            #expect(!setCookie.contains("Secure"), "plain http: a Secure cookie would never come back")
            #expect(!setCookie.contains(Self.token), "the cookie is a session id, not the token")
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))

            #expect(try await client.execute(uri: "/notes/\(ids.note)", method: .get, headers: [.cookie: cookie]).status == .ok)
            let notes = try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: cookie])
            #expect(notes.status == .ok && String(buffer: notes.body).contains("private"))
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: "attach_session=forged"]).status == .unauthorized)

            let logout = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: cookie])
            #expect(logout.status == .seeOther && logout.headers[.location] == "/login")
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: cookie]).status == .unauthorized,
                    "the session is gone on the server, not only in the browser")
        }
    }

    @Test("a login made through one server is accepted by another server of the same store, and by a restarted one")
    func sessionIsSharedByServersOfOneStore() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let serverA = try await buildApplication(fixture.configuration)
        let serverB = try await buildApplication(fixture.configuration)
        let cookie = try await serverA.test(.router) { client in try await Self.logIn(client) }
        try await serverB.test(.router) { client in
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: cookie]).status == .ok,
                    "B reads the session A wrote into the catalog")
            let logout = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: cookie])
            #expect(logout.status == .seeOther)
        }
        let restarted = try await buildApplication(fixture.configuration)
        try await restarted.test(.router) { client in
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: cookie]).status == .unauthorized,
                    "a logout on B ends the session for every server")
            let again = try await Self.logIn(client)
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: again]).status == .ok)
        }
    }

    @Test("the catalog keeps a session's key only as a hash: a copy of the catalog opens no session")
    func catalogHoldsNoSessionKey() async throws {
        let fixture = try ServerFixture(token: Self.token)
        let cookie = try await fixture.test { client in try await Self.logIn(client) }
        let key = try #require(cookie.split(separator: "=", maxSplits: 1).last.map(String.init))
        let catalog = try Data(contentsOf: fixture.configuration.storeDirectory.appending(path: "catalog.sqlite"))
            + ((try? Data(contentsOf: fixture.configuration.storeDirectory.appending(path: "catalog.sqlite-wal"))) ?? Data())
        #expect(catalog.range(of: Data(key.utf8)) == nil, "the cookie's key is nowhere in the catalog's bytes")
        let store = try await fixture.store()
        #expect(try await store.sessionValue(key: "session." + key) != nil, "the session is there, under its hash")
    }

    @Test("a session expires after its lifetime")
    func sessionsExpire() async throws {
        var fixture = try ServerFixture(token: Self.token)
        fixture.configuration.sessionLifetime = .seconds(1)
        try await fixture.test { client in
            // (That a fresh session works is shown by the lifecycle test; on a loaded machine a
            // second can pass before the next request, so only the expiry is checked here.)
            let cookie = try await Self.logIn(client)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await client.execute(uri: "/api/notes", method: .get, headers: [.cookie: cookie]).status == .unauthorized)
        }
    }

    @Test("behind an https public URL the session cookie is Secure")
    func secureCookieUnderHTTPS() async throws {
        var fixture = try ServerFixture(token: Self.token)
        fixture.configuration.publicURL = URL(string: "https://photos.example.com")
        try await fixture.test { client in
            let response = try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                    body: ByteBuffer(string: "token=\(Self.token)"))
            #expect(response.headers[.setCookie]?.contains("Secure") == true)
        }
    }

    @Test("after login the browser goes only to a path on this server", arguments: [
        ("/notes/x?y=1", "/notes/x?y=1"), ("//evil.example/", "/"), ("/\\evil.example", "/"), ("https://evil.example", "/"),
        ("javascript:alert(1)", "/"), ("/a\nb", "/"), ("", "/"),
    ])
    func loginRedirectStaysHere(next: String, expected: String) {
        #expect(LoginRoutes.safeNext(next) == expected)
    }

    @Test("a sync-only token reads the peer protocol and nothing else, and cannot log in")
    func syncTokenIsScoped() async throws {
        var fixture = try ServerFixture(token: Self.token)
        fixture.configuration.syncToken = "peer-only-token"
        let ids = try await Self.seeded(fixture)
        try await fixture.test { client in
            let peer: HTTPFields = [.authorization: "Bearer peer-only-token"]
            #expect(try await client.execute(uri: "/sync/changes?since=0", method: .get, headers: peer).status == .ok)
            #expect(try await client.execute(uri: "/sync/status", method: .get, headers: peer).status == .ok)
            #expect(try await client.execute(uri: "/blobs/sha256/\(ids.hash)", method: .get, headers: peer).status == .ok)
            for (path, method) in [("/api/notes", HTTPRequest.Method.get), ("/api/notes/\(ids.note)", .delete), ("/metrics", .get),
                                   ("/api/attachments/\(ids.attachment)/original", .get)] {
                let response = try await client.execute(uri: path, method: method, headers: peer)
                #expect(response.status == .forbidden, "\(method) \(path)")
                #expect(JSON.errorCode(response) == "insufficient_scope")
            }
            let login = try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                 body: ByteBuffer(string: "token=peer-only-token"))
            #expect(login.status == .unauthorized && login.headers[.setCookie] == nil)
        }
        #expect(try await fixture.store().allAttachments().count == 1, "the peer deleted nothing")
    }

    @Test("a sync token needs a full token and must differ from it")
    func syncTokenConfiguration() {
        var configuration = ServerConfiguration()
        configuration.syncToken = "s"
        #expect(throws: ServerConfiguration.Problem.syncTokenWithoutToken) { try configuration.validate() }
        configuration.token = "s"
        #expect(throws: ServerConfiguration.Problem.syncTokenEqualsToken) { try configuration.validate() }
        configuration.token = "t"
        #expect(throws: Never.self) { try configuration.validate() }
    }

    @Test("without a token the server stays open on loopback, and the login page just sends the browser on")
    func openServerNeedsNoLogin() async throws {
        try await ServerFixture().test { client in
            #expect(try await client.execute(uri: "/api/notes", method: .get).status == .ok)
            let login = try await client.execute(uri: "/login?next=/notes/x", method: .get)
            #expect(login.status == .seeOther && login.headers[.location] == "/notes/x")
        }
    }
}
