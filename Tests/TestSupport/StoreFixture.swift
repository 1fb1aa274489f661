import AttachmentPostgres
import AttachmentS3
import AttachmentStore
import Foundation
import Logging
import S3Client

/// A new, empty store in its own temporary folder, for one test.
///
/// With `ATTACH_TEST_BLOBS=s3` in the environment (and the `S3_*` variables of a running S3
/// server, as `make test` sets them), every fixture keeps its originals in that S3 bucket under
/// a prefix of its own (`ATTACH_TEST_BLOBS=directory`: in a directory of its own outside the store); with `ATTACH_TEST_CATALOG=postgres` (and `ATTACH_TEST_POSTGRES`, the URL
/// of a running PostgreSQL), its catalog lives in a PostgreSQL schema of its own. So the store's
/// whole test suite runs against each backend unchanged.
public struct StoreFixture: Sendable {
    /// The folder holding the store (removed when the fixture is released).
    public let directory: TemporaryDirectory
    /// The store.
    public let store: AttachmentStore
    /// The configuration the store was created with (reused by ``reopen(_:)``).
    public let configuration: AttachmentStore.Configuration

    /// Creates the folder and the store in `<temp>/store`.
    public init(_ label: String = "store", configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws {
        directory = try TemporaryDirectory(label)
        var configuration = configuration
        if configuration.objectStore == nil, configuration.blobPlacement == .files {
            if let objectStore = try Self.testObjectStore(label: label, beside: directory.appending("shared-blobs")) {
                configuration.originals = .objectStore(objectStore)
            }
        }
        if configuration.catalogDatabase == nil, Self.usesPostgres {
            configuration.catalogDatabase = try await Self.testCatalog(label: label)
        }
        self.configuration = configuration
        store = try await AttachmentStore.create(at: directory.appending("store"), configuration: configuration)
    }

    /// The store folder.
    public var storeURL: URL { directory.appending("store") }

    /// Opens the same store again (a second handle, as another process would), with the
    /// fixture's configuration changed by `change`.
    public func reopen(_ change: (inout AttachmentStore.Configuration) -> Void = { _ in }) async throws -> AttachmentStore {
        var configuration = self.configuration
        change(&configuration)
        return try await AttachmentStore.open(at: storeURL, configuration: configuration)
    }

    /// Opens the same store again as another server would, runs `body` with it, and closes what
    /// it opened: with a PostgreSQL catalog, the handle gets a pool of its own of `connections`
    /// connections (the fixture's own has one), so that its writers run side by side; otherwise
    /// it is ``reopen(_:)``.
    public func asAnotherServer<T>(connections: Int = 4, _ body: (AttachmentStore) async throws -> T) async throws -> T {
        guard let catalog = configuration.catalogDatabase as? PostgresCatalogDatabase,
              let url = ProcessInfo.processInfo.environment["ATTACH_TEST_POSTGRES"] else { return try await body(reopen()) }
        let own = try await PostgresCatalogDatabase.connect(url: url + "?schema=" + catalog.schema, logger: Logger(label: "test-catalog"),
                                                            connections: connections)
        do {
            let result = try await body(reopen { $0.catalogDatabase = own })
            await own.close()
            return result
        } catch {
            await own.close()
            throw error
        }
    }

    /// Where the store keeps each original, and its temporary files: paths relative to the
    /// store folder, except the catalog's own files and derived caches, plus `object:<hash>` for
    /// each object when the originals live in an object store.
    public func blobAndTemporaryFiles() async throws -> [String] {
        var found = Files.tree(storeURL).filter { !$0.hasPrefix("catalog.sqlite") && !$0.hasPrefix("cache/") }
        if let objectStore = configuration.objectStore {
            for try await object in objectStore.objects() { found.append("object:\(object.hash)") }
        }
        return found
    }

    /// Destroys every stored original where it is kept (files, or objects and their local
    /// copies), as a disk failure or a careless operator would.
    public func destroyStoredBytes() async throws {
        for entry in try await blobAndTemporaryFiles() {
            if entry.hasPrefix("object:"), let objectStore = configuration.objectStore,
               let hash = BlobHash(rawValue: String(entry.dropFirst("object:".count))) {
                try await objectStore.delete(hash)
            } else {
                try FileManager.default.removeItem(at: storeURL.appending(path: entry))
            }
        }
        try? FileManager.default.removeItem(at: storeURL.appending(path: "cache/blobs"))
    }

    /// Whether this test run keeps originals in an object store (`ATTACH_TEST_BLOBS=s3` or `directory`).
    public static var usesObjectStore: Bool {
        let value = ProcessInfo.processInfo.environment["ATTACH_TEST_BLOBS"] ?? ""
        return !value.isEmpty && value != "files"
    }

    /// Whether this test run keeps catalogs in PostgreSQL (`ATTACH_TEST_CATALOG=postgres`).
    public static var usesPostgres: Bool { ProcessInfo.processInfo.environment["ATTACH_TEST_CATALOG"] == "postgres" }

    /// A catalog in a new schema of the test PostgreSQL (`ATTACH_TEST_POSTGRES`).
    public static func testCatalog(label: String) async throws -> PostgresCatalogDatabase {
        guard let url = ProcessInfo.processInfo.environment["ATTACH_TEST_POSTGRES"], !url.isEmpty else {
            throw MissingService(variable: "ATTACH_TEST_POSTGRES")
        }
        let cleaned = label.lowercased().filter { $0.isLetter || $0.isNumber }
        let schema = "test_\(cleaned.prefix(20))_\(UUID().uuidString.lowercased().prefix(8))"
        // One connection per test store: the test server's connection limit is shared by every
        // store of a parallel test run.
        return try await PostgresCatalogDatabase.connect(url: url + "?schema=" + schema, logger: Logger(label: "test-catalog"),
                                                         connections: 1)
    }

    /// The object store for a new test store: `nil` unless ``usesObjectStore``; else the S3
    /// bucket of the `S3_*` variables under a prefix no other store uses.
    /// For `ATTACH_TEST_BLOBS=directory`, the objects go into `sharedDirectory`.
    public static func testObjectStore(label: String, beside sharedDirectory: URL) throws -> (any BlobObjectStore)? {
        guard usesObjectStore else { return nil }
        if ProcessInfo.processInfo.environment["ATTACH_TEST_BLOBS"] == "directory" {
            return DirectoryBlobObjectStore(directory: sharedDirectory)
        }
        let prefix = "test-\(label)-\(UUID().uuidString.lowercased().prefix(12))"
        let configuration = try S3Configuration(url: "s3://\(try bucket())", environment: ProcessInfo.processInfo.environment)
        return BlobStorageLocation.s3(configuration, prefix: prefix).objectStore()
    }

    /// `ATTACH_TEST_BLOBS` asks for S3 but the S3 variables are not set.
    struct MissingS3Bucket: Error, CustomStringConvertible {
        var description: String { "ATTACH_TEST_BLOBS is set but S3_BUCKET is not; run the tests through `make test`" }
    }

    /// A backend the test run asks for has no server configured.
    struct MissingService: Error, CustomStringConvertible {
        let variable: String
        var description: String { "\(variable) is not set; run the tests through `make test`, which starts the services" }
    }

    private static func bucket() throws -> String {
        guard let bucket = ProcessInfo.processInfo.environment["S3_BUCKET"], !bucket.isEmpty else {
            throw MissingS3Bucket()
        }
        return bucket
    }
}

/// The store's `Attachment`, by a name Swift Testing's own `Attachment` does not shadow.
public typealias StoredAttachment = Attachment
