@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("Attachments API", .timeLimit(.minutes(3)))
struct AttachmentAPITests {
    @Test("a photo uploaded as the body is stored byte for byte and listed")
    func rawUploadIsStored() async throws {
        let fixture = try ServerFixture()
        let source = try Corpus.file("special/seed-3.7mb.jpg")
        let attachment = try await fixture.test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/seed-3.7mb.jpg", to: note.id, contentType: "application/octet-stream")
            #expect(attachment.filename == "seed-3.7mb.jpg")
            #expect(attachment.mediaType == "image/jpeg")  // sniffed, not taken from the request
            #expect(attachment.byteCount == Int64(try Data(contentsOf: source).count))
            #expect(attachment.hash == "sha256:" + (try Files.sha256(source)))
            #expect(attachment.image != nil)

            let list = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get))
            #expect(list.attachments.map(\.id) == [attachment.id])
            let metadata = try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .get)
            #expect(try JSON.decode(AttachmentResource.self, metadata) == attachment)
            return attachment
        }
        let stored = try await fixture.store().original(of: .init(rawValue: attachment.id))
        #expect(try Files.identical(source, stored.fileURL))
    }

    @Test("a form with two photos stores both, in order")
    func multipartUploadStoresEveryFile() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let first = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
            let second = try Data(contentsOf: try Corpus.file("special/photo.png"))
            let form = Multipart(fields: [("title", nil, Data("ignored".utf8)), ("file", "baseline.jpg", first), ("file", "photo.png", second)])
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments", method: .post, headers: form.headers, body: form.body)
            #expect(response.status == .created)
            let list = try JSON.decode(AttachmentList.self, response)
            #expect(list.attachments.map(\.filename) == ["baseline.jpg", "photo.png"])
            #expect(list.attachments.map(\.mediaType) == ["image/jpeg", "image/png"])
            #expect(list.attachments.map(\.byteCount) == [Int64(first.count), Int64(second.count)])
            #expect(list.attachments.map(\.position) == [0, 1])
        }
    }

    @Test("a plain HTML form is sent back to the note page")
    func browserFormIsRedirected() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let form = Multipart(fields: [("file", "baseline.jpg", try Data(contentsOf: try Corpus.file("special/baseline.jpg")))])
            var headers = form.headers
            headers[.accept] = "text/html,application/xhtml+xml"
            let response = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: headers, body: form.body)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/notes/\(note.id)")
        }
    }

    @Test("replacing data gives the attachment new bytes and keeps its id and place")
    func replaceKeepsIdentity() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let original = try await client.upload("special/baseline.jpg", to: note.id)
            let png = try Data(contentsOf: try Corpus.file("special/photo.png"))
            let response = try await client.execute(
                uri: "/api/attachments/\(original.id)/data?filename=new.png", method: .put,
                headers: [.contentType: "image/png"], body: ByteBuffer(data: png))
            #expect(response.status == .ok)
            let replaced = try JSON.decode(AttachmentResource.self, response)
            #expect(replaced.id == original.id)
            #expect(replaced.position == original.position)
            #expect(replaced.hash != original.hash)
            #expect(replaced.mediaType == "image/png")
            #expect(replaced.filename == "new.png")
        }
    }

    @Test("deleting an attachment moves it to the trash and leaves its note; purging it deletes it for good")
    func deleteLeavesNote() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .delete).status == .noContent)
            #expect(!String(buffer: try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get).body).contains(attachment.id))
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .delete).status == .notFound, "already in the trash")
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)?purge=true", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .delete).status == .notFound)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .get).status == .ok)
        }
    }

    @Test("deleting a note takes its attachments with it, to the trash and, purged, for good")
    func deleteNoteCascades() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)?purge=true", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/api/attachments/\(attachment.id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get).status == .notFound)
        }
    }

    // MARK: - Errors

    @Test("uploading to an unknown note is a 404 and stores nothing")
    func uploadToUnknownNote() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let response = try await client.execute(
                uri: "/api/notes/00000000-0000-0000-0000-000000000000/attachments?filename=a.jpg", method: .post,
                headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: "bytes"))
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "note_not_found")
        }
        #expect(try await fixture.store().statistics().blobs == 0)
    }

    @Test("a raw upload without ?filename= is named upload; an empty ?filename= is a 400")
    func rawUploadFilename() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let unnamed = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: "x"))
            #expect(unnamed.status == .created)
            #expect(try JSON.decode(AttachmentResource.self, unnamed).filename == "upload")
            let empty = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: "x"))
            #expect(empty.status == .badRequest)
            #expect(JSON.errorCode(empty) == "filename_required")
        }
    }

    @Test("an upload without a usable Content-Type is a 415",
          arguments: [nil, "application/x-www-form-urlencoded", "multipart/mixed; boundary=x"])
    func uploadNeedsContentType(contentType: String?) async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            var headers: HTTPFields = [:]
            if let contentType { headers[.contentType] = contentType }
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=a", method: .post, headers: headers, body: ByteBuffer(string: "x"))
            #expect(response.status == .unsupportedMediaType)
            #expect(JSON.errorCode(response) == "unsupported_media_type")
        }
    }

    @Test("an upload over the limit is a 413 and stores nothing")
    func oversizedUploadIsRejected() async throws {
        let fixture = try ServerFixture(maxUploadBytes: 1 << 20)
        try await fixture.test { client in
            let note = try await client.createNote()
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=big.jpg", method: .post,
                headers: [.contentType: "image/jpeg"], body: ByteBuffer(repeating: 0xFF, count: (1 << 20) + 1))
            #expect(response.status == .contentTooLarge)
            #expect(JSON.errorCode(response) == "upload_too_large")
            let form = Multipart(fields: [("file", "big.jpg", Data(repeating: 0xFF, count: 2 << 20))])
            let formResponse = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments", method: .post, headers: form.headers, body: form.body)
            #expect(formResponse.status == .contentTooLarge)
        }
        #expect(try await fixture.store().statistics().blobs == 0)
    }

    @Test("an empty upload, an empty file in a form and a form without a file are 422s, and nothing is stored")
    func emptyUploadsAreUnprocessable() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let note = try await client.createNote()
            let empty = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments?filename=a.jpg", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer())
            #expect(empty.status == .unprocessableContent)
            #expect(JSON.errorCode(empty) == "empty_upload")
            let emptyPart = Multipart(fields: [("file", "a.jpg", Data())])
            let emptyFile = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post,
                                                     headers: emptyPart.headers, body: emptyPart.body)
            #expect(emptyFile.status == .unprocessableContent)
            #expect(JSON.errorCode(emptyFile) == "empty_upload")
            let form = Multipart(fields: [("title", nil, Data("just text".utf8))])
            let noFile = try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .post, headers: form.headers, body: form.body)
            #expect(noFile.status == .unprocessableContent)
            #expect(JSON.errorCode(noFile) == "no_file")
        }
        #expect(try await fixture.store().statistics().attachments == 0)
    }

    @Test("a broken multipart body is a 400")
    func brokenMultipartIsRejected() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let cut = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n\r\nhalf a file"
            let response = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments", method: .post,
                headers: [.contentType: "multipart/form-data; boundary=b"], body: ByteBuffer(string: cut))
            #expect(response.status == .badRequest)
            #expect(JSON.errorCode(response) == "invalid_multipart")
            let noBoundary = try await client.execute(
                uri: "/api/notes/\(note.id)/attachments", method: .post,
                headers: [.contentType: "multipart/form-data"], body: ByteBuffer(string: cut))
            #expect(noBoundary.status == .badRequest)
        }
    }

    @Test("replacing the data of an unknown attachment is a 404")
    func replaceUnknownAttachment() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(
                uri: "/api/attachments/00000000-0000-0000-0000-000000000000/data?filename=a", method: .put,
                headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: "x"))
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "attachment_not_found")
        }
    }

    @Test("listing the attachments of an unknown note is a 404")
    func listUnknownNote() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/notes/00000000-0000-0000-0000-000000000000/attachments", method: .get)
            #expect(response.status == .notFound)
        }
    }

    @Test("a note's attachments page by position: next links list each once in order; without limit or after the list is whole")
    func attachmentsPageByPosition() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            var ids: [String] = []
            for _ in 0..<7 { ids.append(try await client.upload("special/baseline.jpg", to: note.id).id) }
            let whole = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(note.id)/attachments", method: .get))
            #expect(whole.attachments.map(\.id) == ids && whole.next == nil)

            var seen: [String] = []
            var uri: String? = "/api/notes/\(note.id)/attachments?limit=3"
            var pages = 0
            while let page = uri {
                let body = try JSON.decode(AttachmentList.self, try await client.execute(uri: page, method: .get))
                #expect(body.attachments.count <= 3)
                seen += body.attachments.map(\.id)
                uri = body.next
                pages += 1
            }
            #expect(seen == ids)
            #expect(pages == 3)
            let afterOnly = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(note.id)/attachments?after=4", method: .get))
            #expect(afterOnly.attachments.map(\.position) == [5, 6], "after alone pages with the default limit")
            for bad in ["limit=0", "limit=501", "after=-1", "after=x"] {
                let response = try await client.execute(uri: "/api/notes/\(note.id)/attachments?\(bad)", method: .get)
                #expect(response.status == .badRequest, "\(bad)")
            }
        }
    }
}

@Suite("Replacing data: errors", .timeLimit(.minutes(2)))
struct ReplaceDataErrorTests {
    @Test("replacing data refuses what an upload refuses",
          arguments: [("no type", 415, "unsupported_media_type"), ("empty name", 400, "filename_required"),
                      ("empty", 422, "empty_upload"), ("too large", 413, "upload_too_large"), ("no token", 401, "unauthorized")])
    func replaceErrors(kind: String, status: Int, code: String) async throws {
        try await ServerFixture(token: kind == "no token" ? "t" : nil, maxUploadBytes: 1 << 20).test { client in
            let auth: HTTPFields = kind == "no token" ? [.authorization: "Bearer t"] : [:]
            var noteHeaders = JSON.headers
            noteHeaders.append(contentsOf: auth)
            let note = try await client.createNote(headers: noteHeaders)
            let photo = try await client.upload("special/baseline.jpg", to: note.id, extraHeaders: auth)
            var uri = "/api/attachments/\(photo.id)/data?filename=x.jpg"
            var headers: HTTPFields = [.contentType: "image/jpeg"]
            var body = ByteBuffer(string: "bytes")
            switch kind {
            case "no type": headers = [:]
            case "empty name": uri = "/api/attachments/\(photo.id)/data?filename="
            case "empty": body = ByteBuffer()
            case "too large": body = ByteBuffer(repeating: 1, count: (1 << 20) + 1)
            default: break
            }
            let response = try await client.execute(uri: uri, method: .put, headers: headers, body: body)
            #expect(response.status.code == status)
            #expect(JSON.errorCode(response) == code)
            let unchanged = try JSON.decode(AttachmentResource.self, try await client.execute(uri: "/api/attachments/\(photo.id)", method: .get, headers: auth))
            #expect(unchanged.hash == photo.hash)
        }
    }

    @Test("a note body that is not JSON, or not application/json, is refused on create and update")
    func noteBodyErrors() async throws {
        try await ServerFixture().test { client in
            let bad = try await client.execute(uri: "/api/notes", method: .post, headers: JSON.headers, body: ByteBuffer(string: "[1,2]"))
            #expect(bad.status == .badRequest)
            let note = try await client.createNote()
            let wrongType = try await client.execute(
                uri: "/api/notes/\(note.id)", method: .patch, headers: [.contentType: "text/plain"], body: ByteBuffer(string: #"{"title":"x"}"#))
            #expect(wrongType.status == .unsupportedMediaType)
        }
    }

    @Test("with a token, deleting an attachment without it is a 401")
    func deleteAttachmentNeedsToken() async throws {
        try await ServerFixture(token: "t").test { client in
            let auth: HTTPFields = [.authorization: "Bearer t"]
            var headers = JSON.headers
            headers.append(contentsOf: auth)
            let note = try await client.createNote(headers: headers)
            let photo = try await client.upload("special/baseline.jpg", to: note.id, extraHeaders: auth)
            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)", method: .delete).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/attachments/\(photo.id)", method: .delete, headers: auth).status == .noContent)
        }
    }

    @Test("PATCH with noteId moves an attachment to the end of another note; a malformed id is 400, an unknown note 404")
    func patchMovesAttachmentToAnotherNote() async throws {
        try await ServerFixture().test { client in
            let trip = try await client.createNote(title: "Trip")
            let album = try await client.createNote(title: "Album")
            let first = try await client.upload("special/baseline.jpg", to: trip.id)
            let second = try await client.upload("special/photo.png", to: trip.id, contentType: "image/png")
            let patch = { (body: String) in
                try await client.execute(uri: "/api/attachments/\(first.id)", method: .patch, headers: JSON.headers, body: ByteBuffer(string: body))
            }
            let moved = try await patch("{\"noteId\": \"\(album.id.uppercased())\"}")
            #expect(moved.status == .ok)
            let resource = try JSON.decode(AttachmentResource.self, moved)
            #expect(resource.noteID.rawValue == album.id && resource.position == 0)
            let left = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(trip.id)/attachments", method: .get))
            #expect(left.attachments.map(\.id) == [second.id] && left.attachments.map(\.position) == [0])

            let malformed = try await patch("{\"noteId\": \"../../etc\"}")
            #expect(malformed.status == .badRequest)
            let unknown = try await patch("{\"noteId\": \"\(UUID().uuidString)\"}")
            #expect(unknown.status == .notFound && JSON.errorCode(unknown) == "note_not_found")
            let empty = try await patch("{}")
            #expect(empty.status == .badRequest)
            let still = try JSON.decode(AttachmentList.self, try await client.execute(uri: "/api/notes/\(album.id)/attachments", method: .get))
            #expect(still.attachments.map(\.id) == [first.id], "refused moves changed nothing")
        }
    }

    @Test("facts: a camera's photo says when and with what it was taken; a PNG without EXIF says nothing; an unknown id is 404")
    func factsComeFromExif() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let png = try await client.upload("special/photo.png", to: note.id, contentType: "image/png")
            let facts = try await client.execute(uri: "/api/attachments/\(photo.id)/facts", method: .get)
            #expect(facts.status == .ok)
            #expect(try JSON.decode(AttachmentRoutes.CaptureFactsResource.self, facts)
                    == .init(capturedAt: "2008-04-19T13:43:16", camera: "KONICA MINOLTA DiMAGE Z5", lens: nil))
            let none = try await client.execute(uri: "/api/attachments/\(png.id)/facts", method: .get)
            #expect(String(buffer: none.body) == "{}")
            let unknown = try await client.execute(uri: "/api/attachments/\(UUID().uuidString)/facts", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    @Test("PATCH alt sets the attachment's alt text, shown on its tile; a line break is 400; empty removes it")
    func patchSetsAltText() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let photo = try await client.upload("special/baseline.jpg", to: note.id)
            let patch = { (body: String) in
                try await client.execute(uri: "/api/attachments/\(photo.id)", method: .patch, headers: JSON.headers, body: ByteBuffer(string: body))
            }
            let set = try await patch(#"{"alt": "A wooden deck <in> the sun"}"#)
            #expect(set.status == .ok)
            #expect(try JSON.decode(AttachmentResource.self, set).metadata["alt"] == "A wooden deck <in> the sun")
            let page = String(buffer: try await client.execute(uri: "/notes/\(note.id)", method: .get).body)
            #expect(page.contains(#"alt="A wooden deck &lt;in&gt; the sun""#))
            let refused = try await patch(#"{"alt": "two\nlines"}"#)
            #expect(refused.status == .badRequest)
            let removed = try await patch(#"{"alt": ""}"#)
            #expect(try JSON.decode(AttachmentResource.self, removed).metadata["alt"] == nil)
        }
    }
}
