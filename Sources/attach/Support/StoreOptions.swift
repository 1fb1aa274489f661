import ArgumentParser
import AttachmentPostgres
import AttachmentS3
import AttachmentStore
import CatalogSQL
import Foundation
import Logging

/// `--store DIR`, `--catalog LOCATION` and `--blobs LOCATION`, shared by every command that opens a
/// store. Each not on the command line comes from the environment (`ATTACH_STORE`, …), else the
/// configuration file (``Settings``), so admin commands open the store the service serves.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Read settings not given on the command line from this YAML file (keys: attach serve's option names).",
        discussion: "Default: $ATTACH_CONFIG, else /etc/attach/attach.conf when it exists. The environment (ATTACH_<OPTION>) wins over it.",
        valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The store folder.", discussion: "Default: $ATTACH_STORE, else store: in the configuration file, else ./attach-data.", valueName: "DIR"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "Where the originals live: files (in the store folder), file:///PATH, or s3://BUCKET[/PREFIX][?endpoint=URL&region=R&addressing=path|virtual&ca_bundle=FILE].",
        discussion: "Default: $ATTACH_BLOBS, else blobs: in the configuration file, else files. S3 credentials come from S3_ACCESS_KEY and S3_SECRET_KEY, "
            + "else the AWS chain; the region from S3_REGION, AWS_REGION; the endpoint from S3_ENDPOINT, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS's "
            + "for the region; AWS_CA_BUNDLE trusts a private CA. A store created with one location must be opened with it afterwards.",
        valueName: "LOCATION"))
    var blobs: String?

    @Option(name: .long, help: ArgumentHelp(
        "Where the catalog lives: sqlite (catalog.sqlite in the store folder) or postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME] (libpq's URL; HOST may be a socket directory).",
        discussion: "Default: $ATTACH_CATALOG, else catalog: in the configuration file, else sqlite. With PostgreSQL the store folder keeps only this machine's "
            + "staging area and caches; servers sharing a catalog must share --blobs too (an S3 bucket).",
        valueName: "LOCATION"))
    var catalog: String?

    /// The store folder this invocation means.
    var url: URL {
        let path = store ?? ProcessSettings.current.value("store") ?? "attach-data"
        return URL(filePath: path, directoryHint: .isDirectory)
    }

    /// Where the originals live, from `--blobs` or `ATTACH_BLOBS`.
    /// - Throws: `ValidationError` naming what is wrong with the location.
    func blobLocation() throws -> BlobStorageLocation {
        do {
            if let blobs = blobs ?? ProcessSettings.current.value("blobs") { return try BlobStorageLocation(parsing: blobs) }
            return .files
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The catalog database `--catalog` (or `ATTACH_CATALOG`) names, connected; `nil` for the
    /// store folder's own SQLite file.
    /// - Throws: `ValidationError` for a malformed location; `AttachmentStore.Error`
    ///   (`.catalogUnavailable` and friends) when the database cannot be reached or opened.
    func catalogDatabase(logger: Logger = Logger(label: "attach-catalog")) async throws -> (any SQLDatabase)? {
        let environment = ProcessInfo.processInfo.environment
        // ATTACH_CATALOG_FILE: the URL (with its password) from a file, off every command line.
        let text = try catalog ?? ProcessSettings.current.value("catalog")
            ?? environment["ATTACH_CATALOG_FILE"].flatMap { $0.isEmpty ? nil : try SecretFile.read($0, for: "ATTACH_CATALOG_FILE") } ?? ""
        if text.isEmpty || text == "sqlite" { return nil }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw ValidationError("--catalog \(text): expected sqlite or postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        do {
            try PostgresCatalogDatabase.validate(url: text)
        } catch let error as SQLDatabaseError {
            throw ValidationError("--catalog: \(error.message)")
        }
        do {
            return try await PostgresCatalogDatabase.connect(url: text, logger: logger)
        } catch let error as SQLDatabaseError {
            throw AttachmentStore.Error.catalogFailure(error)
        }
    }

    /// `configuration` with the catalog `--catalog` and the object store `--blobs` name.
    func configured(_ configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws -> AttachmentStore.Configuration {
        var configuration = configuration
        configuration.originals = try blobLocation().originals()
        configuration.catalogDatabase = try await catalogDatabase()
        return configuration
    }

    /// Opens the existing store — as its owner when run as root on a store another user owns
    /// (``StoreOwner``), after the settings and secrets only root may read have been read.
    func open(configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws -> AttachmentStore {
        let configured = try await configured(configuration)
        try StoreOwner.becomeOwner(of: url)
        return try await AttachmentStore.open(at: url, configuration: configured)
    }

    /// Opens the store, creating it first when the folder is missing or empty — as the owner
    /// of the folder it goes in when run as root (``StoreOwner``).
    func create() async throws -> AttachmentStore {
        let configured = try await configured()
        try StoreOwner.becomeOwner(of: url)
        return try await AttachmentStore.create(at: url, configuration: configured)
    }
}
