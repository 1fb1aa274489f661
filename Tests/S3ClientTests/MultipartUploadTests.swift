import Foundation
import S3Client
import Testing
import TestSupport

@Suite("S3 multipart uploads", .needsS3, .timeLimit(.minutes(3)))
struct MultipartUploadTests {
    let prefix = S3TestEnvironment.uniquePrefix("multipart")

    @Test("a file above the threshold goes up in 5 MiB parts and reads back with the same SHA-256")
    func multipartRoundTrip() async throws {
        let s3 = try S3TestEnvironment.client {
            $0.multipartThreshold = 6 << 20
            $0.partSize = 5 << 20
        }
        let photo = try Corpus.file("special/large-16mb.jpg")
        let key = prefix + "large.jpg"
        let upload = try await s3.putObject(key: key, fileAt: photo.path(percentEncoded: false))
        let size = Int64(try Data(contentsOf: photo).count)
        let expectedParts = Int((size + (5 << 20) - 1) / (5 << 20))
        #expect(upload.partCount == expectedParts)
        #expect(upload.etag.hasSuffix("-\(expectedParts)"))
        #expect(upload.sha256 == (try sha256Hex(of: photo)))
        #expect(try await s3.headObject(key: key)?.size == size)

        let directory = try TemporaryDirectory("s3-multipart")
        let copy = directory.appending("copy.jpg")
        try await s3.getObject(key: key, toFile: copy.path(percentEncoded: false))
        #expect(try sha256Hex(of: copy) == upload.sha256)
        // A range across the first part boundary.
        let boundary = 5 << 20
        let original = try Data(contentsOf: photo)
        #expect(try await s3.bytes(of: key, range: .bounded(first: Int64(boundary - 50), last: Int64(boundary + 49)))
            == Array(original[(boundary - 50)..<(boundary + 50)]))
        try await s3.deleteAll(under: prefix)
    }

    @Test("a part size under S3's 5 MiB minimum is refused before anything is sent")
    func partSizeTooSmall() async throws {
        let s3 = try S3TestEnvironment.client {
            $0.multipartThreshold = 1 << 20
            $0.partSize = 1 << 20
        }
        let photo = try Corpus.file("special/seed-3.7mb.jpg")
        await #expect {
            _ = try await s3.putObject(key: prefix + "never", fileAt: photo.path(percentEncoded: false))
        } throws: { error in
            guard case S3ClientError.invalidConfiguration = error else { return false }
            return true
        }
        #expect(try await s3.headObject(key: prefix + "never") == nil)
    }

    @Test("a file that cannot be read is a typed file error naming it")
    func unreadableFile() async throws {
        let s3 = try S3TestEnvironment.client()
        await #expect {
            _ = try await s3.putObject(key: prefix + "nothing", fileAt: "/nonexistent/photo.jpg")
        } throws: { error in
            guard case S3ClientError.fileError(let path, _) = error else { return false }
            return path == "/nonexistent/photo.jpg"
        }
    }
}
