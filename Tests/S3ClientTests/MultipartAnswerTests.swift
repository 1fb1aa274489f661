import Crypto
import Foundation
import NIOHTTP1
@testable import S3Client
import Testing
import TestSupport

/// How the client reads the answers of multipart uploads, bucket creation and single-object
/// calls from a scripted server: the upload id, the XML it completes an upload with (ETags
/// escaped), a completion that answers 200 with an error document or without an ETag (both
/// aborted), the location constraint outside us-east-1, a bucket already there, the ETag
/// and Content-MD5 of a PUT, and ranged and to-file downloads.
@Suite("S3 answers: multipart uploads, buckets and objects", .timeLimit(.minutes(3)))
struct MultipartAnswerTests {
    static let initiated = FakeAWSEndpoint.Answer.xml(
        #"<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
            + "<Bucket>bucket</Bucket><Key>big</Key><UploadId>upload/1+x</UploadId></InitiateMultipartUploadResult>")
    static let partStored = FakeAWSEndpoint.Answer(status: .ok, headers: [("ETag", "\"part&1\"")])
    static let aborted = FakeAWSEndpoint.Answer(status: .noContent)

    /// A file of `size` bytes in a new temporary directory, and its bytes.
    static func file(size: Int) throws -> (directory: TemporaryDirectory, path: String, bytes: Data) {
        let directory = try TemporaryDirectory("s3-multipart-answers")
        let url = directory.appending("big.bin")
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: url)
        return (directory, url.path(percentEncoded: false), bytes)
    }

    /// A client that uploads every non-empty file in parts.
    static func multipartClient(_ server: ScriptedHTTPServer) throws -> S3Client {
        try server.client {
            $0.multipartThreshold = 1
            $0.partSize = S3Client.minimumPartSize
        }
    }

    // MARK: - Multipart uploads

    @Test("a completed upload sends its parts' ETags escaped in the completion XML and returns the final ETag unquoted")
    func completedUpload() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            Self.initiated, Self.partStored,
            .xml("<CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key><ETag>\"3858f62230ac3c915f300c664312c11f-1\"</ETag></CompleteMultipartUploadResult>"),
        ])
        let (directory, path, bytes) = try Self.file(size: 1000)
        let upload = try await Self.multipartClient(server).putObject(key: "big", fileAt: path)
        #expect(upload == S3Upload(key: "big", size: 1000, etag: "3858f62230ac3c915f300c664312c11f-1",
                                   sha256: SHA256.hash(data: bytes).hexString, partCount: 1))
        #expect(server.requests == [
            "POST /bucket/big?uploads=",
            "PUT /bucket/big?partNumber=1&uploadId=upload%2F1%2Bx",
            "POST /bucket/big?uploadId=upload%2F1%2Bx",
        ])
        #expect(server.endpoint.requests[2].body
            == "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"part&amp;1\"</ETag></Part></CompleteMultipartUpload>")
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    @Test("a completion answered 200 with an error document fails with S3's error, and the upload is aborted")
    func completionErrorInBody() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            Self.initiated, Self.partStored,
            .xml("<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>"),
            Self.aborted,
        ])
        let (directory, path, _) = try Self.file(size: 10)
        await #expect(throws: S3ClientError.badStatus(code: 200, s3Code: "InternalError", message: "We encountered an internal error.")) {
            _ = try await Self.multipartClient(server).putObject(key: "big", fileAt: path)
        }
        #expect(server.requests.last == "DELETE /bucket/big?uploadId=upload%2F1%2Bx")
        #expect(server.requests.count == 4)
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    @Test("a completion answered without an ETag is an unreadable answer, and the upload is aborted")
    func completionWithoutETag() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            Self.initiated, Self.partStored, .xml("<CompleteMultipartUploadResult><Key>big</Key></CompleteMultipartUploadResult>"), Self.aborted,
        ])
        let (directory, path, _) = try Self.file(size: 10)
        await #expect(throws: S3ClientError.invalidResponse("CompleteMultipartUpload of big answered no ETag")) {
            _ = try await Self.multipartClient(server).putObject(key: "big", fileAt: path)
        }
        #expect(server.requests.last == "DELETE /bucket/big?uploadId=upload%2F1%2Bx")
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    @Test("an upload started without an upload id, or with an empty one, fails before any part is sent", arguments: [
        "<InitiateMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key></InitiateMultipartUploadResult>",
        "<InitiateMultipartUploadResult><UploadId></UploadId></InitiateMultipartUploadResult>",
    ])
    func noUploadID(answer: String) async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.xml(answer)])
        let (directory, path, _) = try Self.file(size: 10)
        await #expect(throws: S3ClientError.invalidResponse("CreateMultipartUpload of big answered no UploadId")) {
            _ = try await Self.multipartClient(server).putObject(key: "big", fileAt: path)
        }
        #expect(server.requests == ["POST /bucket/big?uploads="])
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    @Test("a file needing more than 10,000 parts is refused before anything is sent, naming what to raise")
    func tooManyParts() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [Self.initiated])
        let directory = try TemporaryDirectory("s3-too-many-parts")
        let url = directory.appending("sparse.bin")
        let size = S3Client.minimumPartSize * S3Client.maximumPartCount + 1
        // A sparse file: its size is all the client looks at before refusing.
        #expect(FileManager.default.createFile(atPath: url.path(percentEncoded: false), contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        let path = url.path(percentEncoded: false)
        await #expect(throws: S3ClientError.invalidConfiguration(
            "\(path) needs 10001 parts of 5242880 bytes; S3 allows 10000: raise partSize")) {
            _ = try await Self.multipartClient(server).putObject(key: "big", fileAt: path)
        }
        #expect(server.requests.isEmpty)
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    // MARK: - Buckets

    @Test("in us-east-1 a bucket is created with an empty body")
    func createBucketUSEast1() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok)])
        #expect(try await server.client().createBucketIfMissing())
        #expect(server.requests == ["PUT /bucket"])
        #expect(server.endpoint.requests.first?.body == "")
        try await server.stop()
    }

    @Test("in another region the bucket is created with that region as its location constraint")
    func createBucketElsewhere() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok)])
        #expect(try await server.client(region: "eu-west-1").createBucketIfMissing())
        #expect(server.endpoint.requests.first?.body
            == "<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>")
        try await server.stop()
    }

    @Test("BucketAlreadyOwnedByYou means the bucket is there: nothing created, no error")
    func bucketAlreadyOwned() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [
            .xml("<Error><Code>BucketAlreadyOwnedByYou</Code><Message>yours</Message></Error>", status: .conflict),
        ])
        #expect(try await server.client().createBucketIfMissing() == false)
        #expect(server.requests == ["PUT /bucket"])
        try await server.stop()
    }

    @Test("BucketAlreadyExists on a bucket this client can reach is taken as its own; one it cannot reach is the conflict")
    func bucketAlreadyExists() async throws {
        let conflict = FakeAWSEndpoint.Answer.xml("<Error><Code>BucketAlreadyExists</Code><Message>taken</Message></Error>", status: .conflict)
        let reachable = try await ScriptedHTTPServer.start(answers: [conflict, .init(status: .ok)])
        #expect(try await reachable.client().createBucketIfMissing() == false)
        #expect(reachable.requests == ["PUT /bucket", "HEAD /bucket"])
        try await reachable.stop()

        let elsewhere = try await ScriptedHTTPServer.start(answers: [conflict, .init(status: .notFound)])
        await #expect(throws: S3ClientError.badStatus(code: 409, s3Code: "BucketAlreadyExists", message: "taken")) {
            try await elsewhere.client().createBucketIfMissing()
        }
        #expect(elsewhere.requests == ["PUT /bucket", "HEAD /bucket"])
        try await elsewhere.stop()
    }

    // MARK: - Single objects

    @Test("a PUT of bytes sends their Content-MD5 and returns the ETag without quotes")
    func putBytes() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok, headers: [("ETag", "\"900150983cd24fb0d6963f7d28e17f72\"")])])
        let etag = try await server.client().putObject(key: "notes/a b.txt", data: Array("abc".utf8))
        #expect(etag == "900150983cd24fb0d6963f7d28e17f72")
        let request = try #require(server.endpoint.requests.first)
        #expect(request.uri == "/bucket/notes/a%20b.txt")
        #expect(request.header("Content-MD5") == "kAFQmDzST7DWlj99KOF/cg==")
        #expect(request.body == "abc")
        #expect(SignatureCheck.verify(request, secret: "ScriptSecret")?.valid == true)
        try await server.stop()
    }

    @Test("a PUT answered without an ETag is an unreadable answer naming the key")
    func putWithoutETag() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok)])
        await #expect(throws: S3ClientError.invalidResponse("the answer for k has no ETag")) {
            try await server.client().putObject(key: "k", data: [1])
        }
        try await server.stop()
    }

    @Test("HEAD of a missing key is nil; of a present one, its size and unquoted ETag")
    func headObject() async throws {
        let missing = try await ScriptedHTTPServer.start(answers: [.init(status: .notFound)])
        #expect(try await missing.client().headObject(key: "gone") == nil)
        try await missing.stop()

        let present = try await ScriptedHTTPServer.start(answers: [.init(status: .ok, body: "12345", headers: [("ETag", "\"e-1\"")])])
        #expect(try await present.client().headObject(key: "k") == S3ObjectInfo(key: "k", size: 5, etag: "e-1"))
        try await present.stop()
    }

    @Test("deleting a key that holds nothing succeeds, as in S3")
    func deleteMissing() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.xml("<Error><Code>NoSuchKey</Code></Error>", status: .notFound)])
        try await server.client().deleteObject(key: "gone")
        #expect(server.requests == ["DELETE /bucket/gone"])
        try await server.stop()
    }

    @Test("a ranged GET sends its Range header and reports length, ETag and Content-Range as answered")
    func rangedGet() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .partialContent, body: "photo",
                                                       headers: [("ETag", "\"e-2\""), ("Content-Range", "bytes 0-4/11")])])
        let download = try await server.client().getObject(key: "k", range: .bounded(first: 0, last: 4))
        var bytes: [UInt8] = []
        for try await chunk in download.body { bytes += chunk.readableBytesView }
        #expect(bytes == Array("photo".utf8))
        #expect(download.contentLength == 5)
        #expect(download.etag == "e-2")
        #expect(download.contentRange == "bytes 0-4/11")
        #expect(server.endpoint.requests.first?.header("Range") == "bytes=0-4")
        try await server.stop()
    }

    @Test("a download into a file replaces a longer file's contents with exactly the object's bytes")
    func downloadTruncatesFile() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.init(status: .ok, body: "new bytes", headers: [("ETag", "\"e\"")])])
        let directory = try TemporaryDirectory("s3-download-file")
        let url = directory.appending("copy.bin")
        try Data(repeating: 0x41, count: 100).write(to: url)
        let written = try await server.client().getObject(key: "k", toFile: url.path(percentEncoded: false))
        #expect(written == 9)
        #expect(try Data(contentsOf: url) == Data("new bytes".utf8))
        withExtendedLifetime(directory) {}
        try await server.stop()
    }

    @Test("downloading a missing key into a file throws noSuchKey and creates no file")
    func downloadMissingKey() async throws {
        let server = try await ScriptedHTTPServer.start(answers: [.xml("<Error><Code>NoSuchKey</Code><Message>none</Message></Error>", status: .notFound)])
        let directory = try TemporaryDirectory("s3-download-missing")
        let path = directory.appending("never.bin").path(percentEncoded: false)
        await #expect(throws: S3ClientError.noSuchKey(bucket: "bucket", key: "gone")) {
            try await server.client().getObject(key: "gone", toFile: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        withExtendedLifetime(directory) {}
        try await server.stop()
    }
}
