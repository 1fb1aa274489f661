@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

@Suite("Originals", .timeLimit(.minutes(2)))
struct OriginalTests {
    @Test("the original comes back byte for byte with its hash as ETag")
    func originalIsByteIdentical() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
            #expect(response.status == .ok)
            #expect(Data(buffer: response.body) == (try Data(contentsOf: try Corpus.file("special/baseline.jpg"))))
            #expect(response.headers[.eTag] == "\"\(attachment.hash.dropFirst(7))\"")
            #expect(response.headers[.contentType] == "image/jpeg")
            #expect(response.headers[.acceptRanges] == "bytes")
            #expect(response.headers[.cacheControl] == "no-cache")
            #expect(response.headers[.contentDisposition]?.hasPrefix("inline;") == true)
        }
    }

    @Test("a hash-addressed original is cached as immutable")
    func hashAddressIsImmutable() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: attachment.originalUrl, method: .get)
            #expect(response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            let stale = try await client.execute(uri: "/api/attachments/\(attachment.id)/original?v=\(String(repeating: "0", count: 64))", method: .get)
            #expect(stale.headers[.cacheControl] == "no-cache")
        }
    }

    @Test("If-None-Match with the ETag answers 304 without a body")
    func conditionalGetIsNotModified() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let tag = "\"\(attachment.hash.dropFirst(7))\""
            let response = try await client.execute(
                uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.ifNoneMatch: "\"other\", \(tag)"])
            #expect(response.status == .notModified)
            #expect(response.body.readableBytes == 0)
            #expect(response.headers[.eTag] == tag)
            let other = try await client.execute(
                uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.ifNoneMatch: "\"other\""])
            #expect(other.status == .ok)
        }
    }

    @Test("a byte range answers 206 with exactly those bytes",
          arguments: [("bytes=0-99", 0, 99), ("bytes=1000-", 1000, -1), ("bytes=-500", -500, -1), ("bytes=10-999999999", 10, -1)])
    func rangeIsPartialContent(header: String, start: Int, end: Int) async throws {
        let source = try Data(contentsOf: try Corpus.file("special/baseline.jpg"))
        let lower = start < 0 ? source.count + start : start
        let upper = end < 0 ? source.count - 1 : end
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.range: header])
            #expect(response.status == .partialContent)
            #expect(response.headers[.contentRange] == "bytes \(lower)-\(upper)/\(source.count)")
            #expect(Data(buffer: response.body) == source[lower...upper])
        }
    }

    @Test("a range past the end answers 416 with the size")
    func rangePastEndIsUnsatisfiable() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(
                uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.range: "bytes=99999999-"])
            #expect(response.status == .rangeNotSatisfiable)
            #expect(response.headers[.contentRange] == "bytes */\(attachment.byteCount)")
            #expect(JSON.errorCode(response) == "range_not_satisfiable")
        }
    }

    @Test("an If-Range that no longer matches sends the whole file")
    func staleIfRangeSendsEverything() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(
                uri: "/api/attachments/\(attachment.id)/original", method: .get, headers: [.range: "bytes=0-9", .ifRange: "\"old\""])
            #expect(response.status == .ok)
            #expect(Int64(response.body.readableBytes) == attachment.byteCount)
        }
    }

    @Test("an SVG original is a sandboxed download, never inline")
    func activeContentIsDownloaded() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("bad/script.svg", to: note.id, contentType: "image/png")
            #expect(attachment.mediaType == "image/svg+xml")
            #expect(attachment.thumbnailUrl == nil)
            let response = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("HTML and unknown bytes are downloads too")
    func htmlIsDownloaded() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            for (name, bytes) in [("page.jpg", "<!doctype html><script>alert(1)</script>"), ("blob.bin", "\u{01}\u{02}binary")] {
                let upload = try await client.execute(
                    uri: "/api/notes/\(note.id)/attachments?filename=\(name)", method: .post,
                    headers: [.contentType: "image/jpeg"], body: ByteBuffer(string: bytes))
                let attachment = try JSON.decode(AttachmentResource.self, upload)
                let response = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .get)
                #expect(response.headers[.contentDisposition]?.hasPrefix("attachment;") == true, "\(name)")
            }
        }
    }

    @Test("the original of an unknown attachment is a 404")
    func unknownOriginal() async throws {
        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/api/attachments/00000000-0000-0000-0000-000000000000/original", method: .get)
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "attachment_not_found")
        }
    }

    @Test("HEAD on an original answers its headers only")
    func headAnswersHeaders() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote()
            let attachment = try await client.upload("special/baseline.jpg", to: note.id)
            let response = try await client.execute(uri: "/api/attachments/\(attachment.id)/original", method: .head)
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] != nil)
            #expect(response.body.readableBytes == 0)
        }
    }
}
