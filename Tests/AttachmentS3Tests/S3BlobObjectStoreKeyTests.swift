@testable import AttachmentS3
import AttachmentStore
import Foundation
import S3Client
import Testing

/// AttachmentS3's pure parts: how `S3BlobObjectStore` normalises its prefix and names each
/// blob's object, the location it reports, how it maps the client's errors onto the store's
/// (a missing key is a missing blob only when a blob was named; cancellation passes through),
/// and `BlobStorageLocation`'s descriptions (never a secret) and the object store each names.
@Suite("AttachmentS3: object keys, locations and error mapping")
struct S3BlobObjectStoreKeyTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!

    static func configuration(endpoint: String = "http://127.0.0.1:9000", bucket: String = "attach") throws -> S3Configuration {
        try S3Configuration(endpoint: try #require(URL(string: endpoint)), bucket: bucket,
                            accessKey: "AKIASTORE", secretKey: "StoreSecretKey")
    }

    static func store(prefix: String) throws -> S3BlobObjectStore {
        S3BlobObjectStore(client: S3Client(configuration: try configuration()), prefix: prefix)
    }

    // MARK: - Prefixes and keys

    @Test("the prefix loses its outer slashes and gains exactly one at its end; none stays none", arguments: [
        ("", ""),
        ("/", ""),
        ("///", ""),
        ("photos", "photos/"),
        ("photos/", "photos/"),
        ("/photos", "photos/"),
        ("//photos//", "photos/"),
        ("tenant/a/photos", "tenant/a/photos/"),
        ("a//b", "a//b/"),
    ])
    func prefixNormalised(given: String, prefix: String) throws {
        #expect(try Self.store(prefix: given).prefix == prefix)
    }

    @Test("a blob's object is named <prefix>sha256/<hash>", arguments: [
        ("", "sha256/"),
        ("photos", "photos/sha256/"),
        ("/tenant/a/", "tenant/a/sha256/"),
    ])
    func keys(prefix: String, keyPrefix: String) throws {
        #expect(try Self.store(prefix: prefix).key(for: Self.hash) == keyPrefix + Self.hash.rawValue)
    }

    @Test("different blobs get different keys, and the key ends with the full hash")
    func keysDistinct() throws {
        let store = try Self.store(prefix: "p")
        let other = try #require(BlobHash(rawValue: String(repeating: "0", count: 63) + "1"))
        #expect(store.key(for: Self.hash) != store.key(for: other))
        #expect(store.key(for: other).hasSuffix("/" + other.rawValue))
    }

    @Test("the location names bucket, normalised prefix and endpoint, never the keys")
    func location() throws {
        let store = try Self.store(prefix: "/notes")
        #expect(store.location == "s3://attach/notes/ at http://127.0.0.1:9000")
        #expect(!store.location.contains("StoreSecretKey"))
        #expect(!store.location.contains("AKIASTORE"))
        #expect(try Self.store(prefix: "").location == "s3://attach/ at http://127.0.0.1:9000")
    }

    // MARK: - Error mapping

    @Test("a missing key is a missing blob when a blob was named")
    func missingKeyIsMissingBlob() throws {
        let store = try Self.store(prefix: "p")
        let mapped = store.mapped(S3ClientError.noSuchKey(bucket: "attach", key: store.key(for: Self.hash)),
                                  operation: "download blob", hash: Self.hash)
        #expect(mapped as? BlobObjectStoreError == .missing(Self.hash))
    }

    @Test("a missing key without a blob named is the store being unavailable, with the client's words")
    func missingKeyWithoutHash() throws {
        let store = try Self.store(prefix: "p")
        let error = S3ClientError.noSuchKey(bucket: "attach", key: "p/sha256/")
        #expect(store.mapped(error, operation: "list the blobs") as? BlobObjectStoreError
            == .unavailable(operation: "list the blobs", location: store.location, cause: .init(error)))
    }

    @Test("a corrupted transfer is reported as such, with the client's reason")
    func corruptTransfer() throws {
        let store = try Self.store(prefix: "p")
        let mapped = store.mapped(S3ClientError.corruptTransfer(key: "k", reason: "the download ended after 3 of 9 bytes"),
                                  operation: "download blob abababababab", hash: Self.hash)
        guard case .unavailable(let operation, let location, let cause) = mapped as? BlobObjectStoreError else {
            Issue.record("not an unavailable store: \(mapped)")
            return
        }
        #expect(operation == "download blob abababababab" && location == store.location)
        // The client's error is kept as thrown, so a caller decides by its type.
        guard case .corruptTransfer(let key, let reason) = cause.error as? S3ClientError else {
            Issue.record("the cause is not the client's error: \(cause.error)")
            return
        }
        #expect(key == "k" && reason == "the download ended after 3 of 9 bytes")
        #expect("\(mapped)".hasSuffix("the transfer of \"k\" was corrupted: the download ended after 3 of 9 bytes"))
    }

    @Test("any other client error is the store being unavailable, described in full", arguments: [
        S3ClientError.accessDenied(s3Code: "AccessDenied", message: "no"),
        .unreachable(endpoint: "http://127.0.0.1:9000", attempts: 4, underlying: "refused"),
        .noSuchBucket("attach"),
        .badStatus(code: 500, s3Code: nil, message: nil),
    ])
    func otherErrorsUnavailable(error: S3ClientError) throws {
        let store = try Self.store(prefix: "p")
        let mapped = store.mapped(error, operation: "upload blob abababababab", hash: Self.hash)
        #expect(mapped as? BlobObjectStoreError
            == .unavailable(operation: "upload blob abababababab", location: store.location, cause: .init(error)))
        #expect("\(mapped)".hasPrefix("cannot upload blob abababababab at s3://attach/p/ at http://127.0.0.1:9000: "))
    }

    @Test("cancellation passes through unchanged, so callers still see it as cancellation")
    func cancellationPassesThrough() throws {
        let mapped = try Self.store(prefix: "p").mapped(CancellationError(), operation: "upload blob", hash: Self.hash)
        #expect(mapped is CancellationError)
    }

    // MARK: - BlobStorageLocation

    @Test("locations describe themselves as files, a file URL, or bucket, prefix and endpoint")
    func locationDescriptions() throws {
        #expect(BlobStorageLocation.files.description == "files")
        #expect(BlobStorageLocation.directory(URL(filePath: "/srv/shared blobs")).description == "file:///srv/shared blobs")
        let s3 = BlobStorageLocation.s3(try Self.configuration(endpoint: "https://s3.eu-west-1.amazonaws.com", bucket: "notes"),
                                        prefix: "tenant-1")
        #expect(s3.description == "s3://notes/tenant-1 at https://s3.eu-west-1.amazonaws.com")
    }

    @Test("an S3 location's description never shows the access key or the secret")
    func locationHidesSecrets() throws {
        let description = BlobStorageLocation.s3(try Self.configuration(), prefix: "p").description
        #expect(!description.contains("StoreSecretKey"))
        #expect(!description.contains("AKIASTORE"))
    }

    @Test("files in the store folder need no object store; a directory and a bucket name theirs")
    func objectStores() throws {
        #expect(BlobStorageLocation.files.objectStore() == nil)

        let directory = try #require(BlobStorageLocation.directory(URL(filePath: "/srv/blobs")).objectStore() as? DirectoryBlobObjectStore)
        #expect(directory.location == "file:///srv/blobs")

        let configuration = try Self.configuration()
        let s3 = try #require(BlobStorageLocation.s3(configuration, prefix: "/photos/").objectStore() as? S3BlobObjectStore)
        #expect(s3.prefix == "photos/")
        #expect(s3.client.configuration == configuration)
        #expect(s3.key(for: Self.hash) == "photos/sha256/" + Self.hash.rawValue)
    }

    @Test("locations are equal when they name the same place")
    func locationEquality() throws {
        let configuration = try Self.configuration()
        #expect(BlobStorageLocation.s3(configuration, prefix: "a") == .s3(configuration, prefix: "a"))
        #expect(BlobStorageLocation.s3(configuration, prefix: "a") != .s3(configuration, prefix: "b"))
        #expect(BlobStorageLocation.directory(URL(filePath: "/x")) != .files)
        #expect(BlobStorageLocation.s3(configuration, prefix: "a") != .s3(try Self.configuration(bucket: "other"), prefix: "a"))
    }
}
