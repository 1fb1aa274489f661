import Foundation
import S3Client
import Testing
import TestSupport

/// Objects in and out of a real S3 server (OpenStack Swift's s3api under `make test`).
@Suite("S3 objects", .needsS3, .timeLimit(.minutes(3)))
struct ObjectRoundTripTests {
    let s3: S3Client
    let prefix = S3TestEnvironment.uniquePrefix("objects")

    init() throws { s3 = try S3TestEnvironment.client() }

    @Test("a 16 MB photo uploaded from a file downloads to a file byte for byte, with its SHA-256")
    func largePhotoRoundTrip() async throws {
        let photo = try Corpus.file("special/large-16mb.jpg")
        let directory = try TemporaryDirectory("s3-round-trip")
        let key = prefix + "large-16mb.jpg"
        let upload = try await s3.putObject(key: key, fileAt: photo.path(percentEncoded: false))
        #expect(upload.partCount == 0)
        #expect(upload.size == Int64(try Data(contentsOf: photo).count))
        #expect(upload.sha256 == (try sha256Hex(of: photo)))

        let copy = directory.appending("copy.jpg")
        let written = try await s3.getObject(key: key, toFile: copy.path(percentEncoded: false))
        #expect(written == upload.size)
        #expect(try Data(contentsOf: copy) == Data(contentsOf: photo))
        try await s3.deleteAll(under: prefix)
    }

    @Test("a dozen photos of the fifty round-trip byte for byte through putObject(data:) and a streamed GET")
    func photosRoundTrip() async throws {
        for photo in try Corpus.files(in: "fifty").prefix(12) {
            let bytes = try Data(contentsOf: photo)
            let key = prefix + photo.lastPathComponent
            let etag = try await s3.putObject(key: key, data: bytes)
            #expect(etag.count == 32)
            #expect(try await s3.bytes(of: key) == Array(bytes))
        }
        try await s3.deleteAll(under: prefix)
    }

    @Test("an empty file uploads as an empty object with the SHA-256 of nothing")
    func emptyFile() async throws {
        let directory = try TemporaryDirectory("s3-empty")
        let empty = directory.appending("empty")
        try Data().write(to: empty)
        let key = prefix + "empty"
        let upload = try await s3.putObject(key: key, fileAt: empty.path(percentEncoded: false))
        #expect(upload.size == 0)
        #expect(upload.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try await s3.headObject(key: key)?.size == 0)
        #expect(try await s3.bytes(of: key).isEmpty)
        try await s3.deleteAll(under: prefix)
    }

    @Test("ranged GETs answer exactly the bytes asked for, with Content-Range")
    func rangedGet() async throws {
        let photo = try Data(contentsOf: Corpus.file("special/seed-3.7mb.jpg"))
        let key = prefix + "seed.jpg"
        try await s3.putObject(key: key, data: photo)

        let middle = try await s3.getObject(key: key, range: .bounded(first: 1_000_000, last: 1_999_999))
        #expect(middle.contentLength == 1_000_000)
        #expect(middle.contentRange == "bytes 1000000-1999999/\(photo.count)")
        var bytes: [UInt8] = []
        for try await chunk in middle.body { bytes += chunk.readableBytesView }
        #expect(bytes == Array(photo[1_000_000...1_999_999]))

        #expect(try await s3.bytes(of: key, range: .suffix(100)) == Array(photo.suffix(100)))
        #expect(try await s3.bytes(of: key, range: .from(Int64(photo.count - 10))) == Array(photo.suffix(10)))
        try await s3.deleteAll(under: prefix)
    }

    @Test("HEAD tells size and ETag of a present object and nil for a missing one")
    func headPresentAndMissing() async throws {
        let key = prefix + "head.bin"
        let etag = try await s3.putObject(key: key, data: Array("hello, S3".utf8))
        #expect(try await s3.headObject(key: key) == S3ObjectInfo(key: key, size: 9, etag: etag))
        #expect(try await s3.headObject(key: prefix + "missing") == nil)
        try await s3.deleteAll(under: prefix)
    }

    @Test("DELETE removes an object; deleting a missing key succeeds; GET of it is noSuchKey")
    func deleteThenGet() async throws {
        let key = prefix + "deleted.bin"
        try await s3.putObject(key: key, data: [1, 2, 3])
        try await s3.deleteObject(key: key)
        #expect(try await s3.headObject(key: key) == nil)
        try await s3.deleteObject(key: key)
        await #expect(throws: S3ClientError.noSuchKey(bucket: s3.configuration.bucket, key: key)) {
            _ = try await s3.getObject(key: key)
        }
    }

    @Test("keys with spaces, unicode, slashes, plus, equals and other awkward characters round-trip and list as themselves",
          arguments: ["with space.jpg", "ünïcödé/フォト 1.jpg", "a+b=c.jpg", "nested/dir/x.jpg", "100%25 literal",
                      "tilde~!*'()$@,;:", "amp&question?hash#.jpg", "trailing space "])
    func awkwardKeys(name: String) async throws {
        let key = prefix + name
        let bytes = Array("content of \(name)".utf8)
        try await s3.putObject(key: key, data: bytes)
        #expect(try await s3.headObject(key: key)?.size == Int64(bytes.count))
        #expect(try await s3.bytes(of: key) == bytes)
        var listed: [String] = []
        for try await object in s3.listObjects(prefix: prefix) { listed.append(object.key) }
        #expect(listed == [key])
        try await s3.deleteObject(key: key)
        #expect(try await s3.headObject(key: key) == nil)
    }

    @Test("createBucketIfMissing creates a new bucket once and then reports it present")
    func createBucket() async throws {
        let bucket = "s3client-test-\(UUID().uuidString.prefix(8).lowercased())"
        let fresh = S3Client(configuration: try S3TestEnvironment.configuration { $0.bucket = bucket })
        #expect(try await fresh.createBucketIfMissing())
        #expect(try await fresh.createBucketIfMissing() == false)
        try await fresh.putObject(key: "k", data: [42])
        #expect(try await fresh.bytes(of: "k") == [42])
        try await fresh.deleteObject(key: "k")
    }
}
