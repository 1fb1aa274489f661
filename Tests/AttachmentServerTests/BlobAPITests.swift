@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET|HEAD /blobs/sha256/{hash}`: bytes by content hash for peers, resumable with `Range`.
@Suite("Blob API", .timeLimit(.minutes(2)))
struct BlobAPITests {
    static let photo = "special/baseline.jpg"

    /// A fixture whose store holds the corpus photo, and its hash.
    static func seeded() async throws -> (fixture: ServerFixture, hash: String, bytes: Data) {
        let fixture = try ServerFixture()
        let store = try await fixture.store()
        let note = try await store.createNote(title: "blobs")
        let attachment = try await store.addAttachment(to: note.id, fromFile: try Corpus.file(photo))
        return (fixture, attachment.blobHash.rawValue, try Data(contentsOf: try Corpus.file(photo)))
    }

    @Test("a blob comes back byte for byte, its hash as a strong ETag, cached as immutable and never rendered")
    func blobIsByteIdentical() async throws {
        let (fixture, hash, bytes) = try await Self.seeded()
        try await fixture.test { client in
            let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get)
            #expect(response.status == .ok)
            #expect(Data(buffer: response.body) == bytes)
            #expect(response.headers[.eTag] == "\"\(hash)\"")
            #expect(response.headers[.contentLength] == String(bytes.count))
            #expect(response.headers[.contentType] == "application/octet-stream")
            #expect(response.headers[.acceptRanges] == "bytes")
            #expect(response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            #expect(response.headers[.contentDisposition] == "attachment")
            #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
        }
    }

    @Test("HEAD on a blob answers its length and ETag without a body")
    func headAnswersHeaders() async throws {
        let (fixture, hash, bytes) = try await Self.seeded()
        try await fixture.test { client in
            let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .head)
            #expect(response.status == .ok)
            #expect(response.headers[.contentLength] == String(bytes.count))
            #expect(response.headers[.eTag] == "\"\(hash)\"")
            #expect(response.body.readableBytes == 0)
        }
    }

    @Test("a byte range answers 206 with exactly those bytes and a Content-Range",
          arguments: [("bytes=0-99", 0, 99), ("bytes=1000-", 1000, -1), ("bytes=-500", -500, -1)])
    func rangeIsPartialContent(header: String, start: Int, end: Int) async throws {
        let (fixture, hash, bytes) = try await Self.seeded()
        let lower = start < 0 ? bytes.count + start : start
        let upper = end < 0 ? bytes.count - 1 : end
        try await fixture.test { client in
            let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get, headers: [.range: header])
            #expect(response.status == .partialContent)
            #expect(response.headers[.contentRange] == "bytes \(lower)-\(upper)/\(bytes.count)")
            #expect(Data(buffer: response.body) == bytes[lower...upper])
        }
    }

    @Test("a range past the end of a blob answers 416 with its size")
    func rangePastEndIsUnsatisfiable() async throws {
        let (fixture, hash, bytes) = try await Self.seeded()
        try await fixture.test { client in
            let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get, headers: [.range: "bytes=\(bytes.count)-"])
            #expect(response.status == .rangeNotSatisfiable)
            #expect(response.headers[.contentRange] == "bytes */\(bytes.count)")
            #expect(JSON.errorCode(response) == "range_not_satisfiable")
        }
    }

    @Test("If-None-Match with the blob's ETag answers 304 without a body")
    func conditionalGetIsNotModified() async throws {
        let (fixture, hash, _) = try await Self.seeded()
        try await fixture.test { client in
            let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get, headers: [.ifNoneMatch: "\"\(hash)\""])
            #expect(response.status == .notModified)
            #expect(response.body.readableBytes == 0)
            #expect(response.headers[.eTag] == "\"\(hash)\"")
            let other = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get, headers: [.ifNoneMatch: "\"other\""])
            #expect(other.status == .ok)
        }
    }

    @Test("a malformed hash is a 400", arguments: [
        "abc", String(repeating: "A", count: 64), String(repeating: "0", count: 63), String(repeating: "0", count: 65),
        String(repeating: "g", count: 64),
    ])
    func malformedHashIsRejected(hash: String) async throws {
        try await ServerFixture().test { client in
            for method in [HTTPRequest.Method.get, .head] {
                let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: method)
                #expect(response.status == .badRequest, "\(method)")
            }
            #expect(JSON.errorCode(try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get)) == "bad_hash")
        }
    }

    @Test("a hash this peer has no bytes for is a 404, whether unknown or known only as a record")
    func unknownHashIsNotFound() async throws {
        let fixture = try ServerFixture()
        let remote = try await SyncFeedAPITests.addRemoteRecord(to: try await fixture.store())
        try await fixture.test { client in
            for hash in [String(repeating: "0", count: 64), remote.rawValue] {
                let response = try await client.execute(uri: "/blobs/sha256/\(hash)", method: .get)
                #expect(response.status == .notFound)
                #expect(JSON.errorCode(response) == "blob_not_here")
                #expect(try await client.execute(uri: "/blobs/sha256/\(hash)", method: .head).status == .notFound)
            }
        }
    }
}
