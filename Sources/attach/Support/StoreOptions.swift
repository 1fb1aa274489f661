import ArgumentParser
import AttachmentS3
import AttachmentStore
import Foundation

/// `--store DIR` and `--blobs LOCATION`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store folder.", discussion: "Default: $ATTACH_STORE, else ./attach-data.", valueName: "DIR"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "Where the originals live: files (in the store folder) or s3://BUCKET[/PREFIX]?endpoint=URL.",
        discussion: "Default: $ATTACH_BLOBS, else files. S3 credentials come from S3_ACCESS_KEY and S3_SECRET_KEY, "
            + "the region from S3_REGION. A store created with one location must be opened with it afterwards.",
        valueName: "LOCATION"))
    var blobs: String?

    /// The store folder this invocation means.
    var url: URL {
        let path = store ?? ProcessInfo.processInfo.environment["ATTACH_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? "attach-data"
        return URL(filePath: path, directoryHint: .isDirectory)
    }

    /// Where the originals live, from `--blobs` or `ATTACH_BLOBS`.
    /// - Throws: `ValidationError` naming what is wrong with the location.
    func blobLocation() throws -> BlobStorageLocation {
        do {
            if let blobs { return try BlobStorageLocation(parsing: blobs) }
            return try BlobStorageLocation.fromEnvironment()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `configuration` with the object store `--blobs` names.
    func configured(_ configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) throws -> AttachmentStore.Configuration {
        var configuration = configuration
        configuration.objectStore = try blobLocation().objectStore()
        return configuration
    }

    /// Opens the existing store.
    func open(configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws -> AttachmentStore {
        try await AttachmentStore.open(at: url, configuration: configured(configuration))
    }

    /// Opens the store, creating it first when the folder is missing or empty.
    func create() async throws -> AttachmentStore {
        try await AttachmentStore.create(at: url, configuration: configured())
    }
}
