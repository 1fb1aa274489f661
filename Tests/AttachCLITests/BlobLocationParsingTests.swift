@testable import attach
import AttachmentS3
import AttachmentStore
import Foundation
import S3Client
import Testing

/// The `--blobs` values (and `ATTACH_BLOBS`) `attach` accepts, parsed in-process with a given
/// environment: files in the store folder, a directory elsewhere, an S3 bucket with a prefix;
/// and the message of a refused one. (``InputErrorTests`` checks refused values through the
/// binary; these check what accepted ones mean.) Nothing is contacted.
@Suite("--blobs parsing")
struct BlobLocationParsingTests {
    static let credentials = ["S3_ACCESS_KEY": "key", "S3_SECRET_KEY": "secret"]

    @Test("nothing, or files, means files in the store folder", arguments: ["", "files"])
    func files(text: String) throws {
        #expect(try BlobStorageLocation(parsing: text, environment: [:]) == .files)
    }

    @Test("a file URL names a directory outside the store, whatever the scheme's case or a localhost host", arguments: [
        ("file:///srv/blobs", "/srv/blobs"), ("FILE:///srv/blobs", "/srv/blobs"), ("file://localhost/srv/blobs", "/srv/blobs"),
        ("file:///srv/blobs/", "/srv/blobs"), ("file:///mnt/nas/attach%20blobs", "/mnt/nas/attach blobs"),
    ])
    func directory(text: String, path: String) throws {
        let location = try BlobStorageLocation(parsing: text, environment: [:])
        guard case .directory(let url) = location else {
            Issue.record("\(text) parsed as \(location)")
            return
        }
        #expect(url.standardizedFileURL.path(percentEncoded: false).trimmingSuffix("/") == path)
        #expect(location.description.hasPrefix("file:///"))
        #expect(location.objectStore() is DirectoryBlobObjectStore)
    }

    @Test("a file URL must name an absolute folder, and nothing else", arguments: [
        "file://relative/path", "file:///", "file://", "file:///srv/blobs?sync=1", "file://nas.local/srv/blobs",
    ])
    func badDirectory(text: String) {
        #expect(throws: BlobLocationError(text: text, reason: "expected file:///ABSOLUTE/PATH")) {
            try BlobStorageLocation(parsing: text, environment: [:])
        }
    }

    @Test("a plain path, or any other scheme, is refused with the forms that would work", arguments: [
        "/srv/blobs", "blobs", "Files", "http://127.0.0.1:9000/bucket", "gs://bucket",
    ])
    func otherForms(text: String) throws {
        let error = try #require(throws: BlobLocationError.self) { try BlobStorageLocation(parsing: text, environment: [:]) }
        #expect(error.text == text)
        #expect(error.description == "--blobs \(text): expected `files`, file:///PATH or s3://BUCKET[/PREFIX][?endpoint=https://HOST:PORT]")
    }

    @Test("an s3 URL names the bucket, the prefix without its slashes, the endpoint and the region")
    func s3() throws {
        let location = try BlobStorageLocation(parsing: "s3://photos/tenant-a/2026/?endpoint=http://127.0.0.1:9000&region=eu-west-1",
                                               environment: Self.credentials)
        guard case .s3(let configuration, let prefix) = location else {
            Issue.record("parsed as \(location)")
            return
        }
        #expect(configuration.bucket == "photos")
        #expect(prefix == "tenant-a/2026")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(configuration.region == "eu-west-1")
        #expect(location.description == "s3://photos/tenant-a/2026 at http://127.0.0.1:9000")
        #expect(!location.description.contains("secret"), "a location never shows a secret")
    }

    @Test("an s3 URL without a prefix has an empty one; without a region it takes S3_REGION")
    func s3Defaults() throws {
        var environment = Self.credentials
        environment["S3_REGION"] = "ap-south-1"
        let location = try BlobStorageLocation(parsing: "s3://photos?endpoint=http://minio:9000", environment: environment)
        guard case .s3(let configuration, let prefix) = location else {
            Issue.record("parsed as \(location)")
            return
        }
        #expect(prefix.isEmpty && configuration.bucket == "photos" && configuration.region == "ap-south-1")
    }

    @Test("an s3 URL the S3 configuration refuses is refused with its reason, under the --blobs value")
    func s3Refused() throws {
        let text = "s3://photos?endpoint=http://127.0.0.1:9000&colour=blue"
        let error = try #require(throws: BlobLocationError.self) { try BlobStorageLocation(parsing: text, environment: Self.credentials) }
        #expect(error.description.hasPrefix("--blobs \(text): "))
        #expect(error.reason.contains("colour"))
    }

    @Test("ATTACH_BLOBS is read when no --blobs is given: unset or empty is files")
    func fromEnvironment() throws {
        #expect(try BlobStorageLocation.fromEnvironment([:]) == .files)
        #expect(try BlobStorageLocation.fromEnvironment(["ATTACH_BLOBS": ""]) == .files)
        guard case .directory(let url) = try BlobStorageLocation.fromEnvironment(["ATTACH_BLOBS": "file:///srv/shared"]) else {
            Issue.record("ATTACH_BLOBS=file:///srv/shared is not a directory")
            return
        }
        #expect(url.path(percentEncoded: false).hasPrefix("/srv/shared"))
        #expect(throws: BlobLocationError.self) { try BlobStorageLocation.fromEnvironment(["ATTACH_BLOBS": "bogus://x"]) }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        count > suffix.count && hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
