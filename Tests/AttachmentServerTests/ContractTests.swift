@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Where the server and `/openapi.yaml` could disagree, the server follows HTTP and the document.
@Suite("The API keeps its contract", .timeLimit(.minutes(3)))
struct ContractTests {
    @Test("a method a path does not take is a 405 naming the ones it does; an unknown path stays a 404")
    func methodNotAllowed() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            for (method, uri, allow) in [(HTTPRequest.Method.delete, "/api/notes", "GET, HEAD, POST"),
                                         (.put, "/api/notes/\(note.id)", "DELETE, GET, HEAD, PATCH"),
                                         (.post, "/health", "GET, HEAD")] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                #expect(String(buffer: response.body).contains("method_not_allowed"))
            }
            #expect(try await client.execute(uri: "/api/nothing-here", method: .delete).status == .notFound)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)/nothing", method: .get).status == .notFound)
        }
    }

    @Test("a null field is refused with a 400 naming it, and the note is unchanged")
    func nullFieldRefused() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote(title: "Kept")
            let response = try await client.execute(uri: "/api/notes/\(note.id)", method: .patch, headers: JSON.headers,
                                                    body: ByteBuffer(string: #"{"title": null, "body": "x"}"#))
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains("title may not be null"))
            let kept = try await client.execute(uri: "/api/notes/\(note.id)", method: .get)
            #expect(String(buffer: kept.body).contains(#""title":"Kept""#))
        }
    }

    @Test("a raw replacement without ?filename= keeps the attachment's name")
    func replacementKeepsName() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(photo.id)/data", method: .put,
                                                    headers: [.contentType: "text/plain"], body: ByteBuffer(string: "new bytes"))
            #expect(response.status == .ok)
            let replaced = try JSON.decode(AttachmentResource.self, response)
            #expect(replaced.filename == photo.filename)
            #expect(replaced.hash != photo.hash)
        }
    }

    @Test("a login form with fields it does not name, or repeated, is read like a browser's: the first token counts")
    func loginFormIgnoresExtraFields() async throws {
        try await ServerFixture(token: "secret").test { client in
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let extra = try await client.execute(uri: "/login", method: .post, headers: headers,
                                                 body: ByteBuffer(string: "%C2%BD=a&%C2%BD=b&token=secret&token=wrong&next=%2Fnotes"))
            #expect(extra.status == .seeOther)
            #expect(extra.headers[.location] == "/notes")
            #expect(extra.headers[.setCookie]?.contains("attach_session=") == true)
            let wrong = try await client.execute(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: "token=nope+x"))
            #expect(wrong.status == .unauthorized)
            let none = try await client.execute(uri: "/login", method: .post, headers: headers, body: ByteBuffer())
            #expect(none.status == .unauthorized)
        }
    }

    @Test("PATCH position moves an attachment among its note's; past the end is last; a negative, null or missing position is a 400")
    func moveAttachment() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            var ids: [String] = []
            for name in ["a", "b", "c"] {
                let response = try await client.execute(uri: "/api/notes/\(note.id)/attachments?filename=\(name).txt", method: .post,
                                                        headers: [.contentType: "text/plain"], body: ByteBuffer(string: name))
                ids.append(try JSON.decode(AttachmentResource.self, response).id)
            }
            func order() async throws -> [String] {
                try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get))
                    .attachments.map(\.id)
            }
            let moved = try await client.execute(uri: "/api/attachments/\(ids[2])", method: .patch, headers: JSON.headers,
                                                 body: ByteBuffer(string: #"{"position": 0}"#))
            #expect(moved.status == .ok)
            #expect(try JSON.decode(AttachmentResource.self, moved).position == 0)
            #expect(try await order() == [ids[2], ids[0], ids[1]])
            _ = try await client.execute(uri: "/api/attachments/\(ids[2])", method: .patch, headers: JSON.headers,
                                         body: ByteBuffer(string: #"{"position": 99}"#))
            #expect(try await order() == ids)
            for body in [#"{"position": -1}"#, #"{"position": null}"#, #"{}"#] {
                let refused = try await client.execute(uri: "/api/attachments/\(ids[0])", method: .patch, headers: JSON.headers,
                                                       body: ByteBuffer(string: body))
                #expect(refused.status == .badRequest, "\(body)")
            }
            #expect(try await order() == ids)
        }
    }
}
