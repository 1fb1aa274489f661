import CatalogSQL
import Foundation
import Logging

/// Notes with large attachments: originals kept byte for byte in content-addressed files,
/// references in a SQLite catalog, and nothing heavy on the caller's path.
///
/// Every method is `async` and safe to call from any task; disk and database work runs on
/// threads outside Swift's cooperative pool. A store directory may be shared by several
/// processes at once.
///
/// ```swift
/// let store = try await AttachmentStore.create(at: URL(filePath: "attach-data"))
/// let note = try await store.createNote(title: "Trip")
/// let photo = try await store.addAttachment(to: note.id, fromFile: URL(filePath: "IMG_0001.jpg"))
/// for try await chunk in try await store.original(of: photo.id).chunks() { _ = chunk }
/// ```
public final class AttachmentStore: Sendable {
    /// Tunables of a store; every field has a safe default.
    public struct Configuration: Sendable {
        /// How long a write waits for another process's transaction before failing. Default 30 s.
        public var busyTimeout: TimeInterval = 30
        /// Where a store created with this configuration keeps original bytes: files (the
        /// default), the catalog, or an object store. An existing store keeps the placement it
        /// was created with, and one created with an object store must be opened with the same
        /// one (its ``BlobObjectStore/location``).
        public var originals = OriginalsLocation.files

        /// The placement ``originals`` gives a new store.
        public var blobPlacement: BlobPlacement { originals.placement }
        /// The catalog's database when it is not the store folder's own SQLite file: PostgreSQL
        /// shared by several servers (`PostgresCatalogDatabase` in `AttachmentPostgres`).
        /// Default `nil`: `catalog.sqlite` in the store folder. With one, the store folder holds
        /// only this server's staging area and caches, and is created when missing.
        public var catalogDatabase: (any SQLDatabase)?
        /// The object store of ``originals``, when the originals live in one (an S3 bucket).
        public var objectStore: (any BlobObjectStore)? { originals.objectStore }
        /// How long an ingest's claim on a blob it is uploading to the object store protects
        /// that object from another process's `gc`. Default one hour; an upload taking longer
        /// renews nothing, so keep it above the longest upload.
        public var uploadLease: Duration = .seconds(3600)
        /// Byte budget of the in-memory cache of the key-value image store. Default 32 MiB.
        public var imageCacheByteLimit: Int = 32 << 20
        /// How thumbnails are made and cached (200 px, one render per core, 32 MiB in memory).
        public var thumbnails = ThumbnailConfiguration()
        /// How videos are read and made playable (ffprobe and ffmpeg from `PATH`, one
        /// transcode at a time, H.264 at most 1280 px).
        public var videos = VideoConfiguration()
        /// Where the bytes of attachments that arrived by sync come from when someone asks for
        /// them. Default `nil`: asking for them throws ``Error/notAvailableLocally(_:)``.
        public var remoteBlobSource: (any RemoteBlobSource)?
        /// The bounds every change and blob from a peer must keep (sizes, clock skew, field
        /// lengths). Default ``PeerInputLimits/init()``.
        public var peerLimits = PeerInputLimits()
        /// How much of `tmp/` partial peer downloads may take, per peer and in all, and how long
        /// a cut transfer's leftover is kept. Default ``PartialDownloadLimits/init()``.
        public var partialDownloads = PartialDownloadLimits()
        /// How long after a read an original or cached file is spared by
        /// ``AttachmentStore/enforceStorageBudget()``, so a reader that was just handed a file
        /// can open it. Default 10 s.
        public var evictionGrace: TimeInterval = 10
        /// How long a note or attachment stays in the trash before ``AttachmentStore/purgeExpiredTrash()``
        /// deletes it for good (and `gc` may free its bytes). Default 30 days.
        public var trashRetention: Duration = .seconds(30 * 86_400)
        /// Where the store logs. Default: a logger labelled `attachment-store`.
        public var logger = Logger(label: "attachment-store")

        /// The default configuration.
        public init() {}
    }

    /// The store directory.
    public let directory: URL
    /// Where this store keeps original bytes (fixed when it was created).
    public var blobPlacement: BlobPlacement { backend.placement }
    /// The configuration the store was opened with.
    public let configuration: Configuration
    let layout: StoreLayout
    let catalog: Catalog
    let blobs: StoreFolderBlobs
    /// Where the originals live: every step that depends on the placement goes through it.
    let backend: any BlobBackend
    let imageCache: MemoryCache<String, Data>
    let thumbnails: ThumbnailPipeline
    /// The playable copies of videos.
    let renditions: VideoRenditions
    let clock: HybridClock
    /// The partial peer downloads in `tmp/` and their caps.
    let partials: PartialDownloads
    /// The requests of this process writing resumable uploads (the lock handover).
    let uploadHolders = UploadHolders()

    /// This store's stable peer id, made when the store was created.
    public var peerID: String { clock.peer }

    private init(layout: StoreLayout, catalog: Catalog, configuration: Configuration) {
        self.directory = URL(filePath: layout.root, directoryHint: .notDirectory)
        self.layout = layout
        self.catalog = catalog
        let blobs = StoreFolderBlobs(root: layout.root, syncsStagedBlobs: catalog.placement.syncsStagedBlobs,
                              installsFiles: catalog.placement.keepsOriginalsAsFiles)
        self.blobs = blobs
        self.backend = BlobBackends.make(
            for: catalog.placement, objectStore: configuration.objectStore,
            context: BlobBackendContext(files: blobs, catalog: catalog, layout: layout, logger: configuration.logger,
                                        uploadLease: configuration.uploadLease))
        self.configuration = configuration
        self.imageCache = MemoryCache(byteLimit: configuration.imageCacheByteLimit)
        self.clock = HybridClock(peer: catalog.peerID, latest: catalog.latestClock)
        self.partials = PartialDownloads(folder: layout.temporaryPath)
        self.thumbnails = ThumbnailPipeline(configuration: configuration.thumbnails, videoTools: configuration.videos.tools,
                                            cachePath: layout.cachePath, logger: configuration.logger)
        self.renditions = VideoRenditions(configuration: configuration.videos, limits: configuration.thumbnails.renderOptions.limits,
                                          cachePath: layout.cachePath, logger: configuration.logger)
    }

    /// Opens the existing store at `directory`.
    /// - Throws: ``Error/storeNotFound(path:)`` when nothing is there,
    ///   ``Error/notAStore(path:reason:)`` when the directory is something else.
    public static func open(at directory: URL, configuration: Configuration = Configuration()) async throws -> AttachmentStore {
        let (layout, database) = try await BlockingPool.run { () throws -> (StoreLayout, any SQLDatabase) in
            let layout = StoreLayout(directory: directory)
            if let external = configuration.catalogDatabase {
                try layout.createWorkingFolder()
                return (layout, external)
            }
            try layout.validateExisting()
            return (layout, try SQLiteCatalogDatabase(path: layout.catalogPath, busyTimeout: configuration.busyTimeout))
        }
        return try await open(layout, database, configuration)
    }

    /// Opens the store at `directory`, creating it first when the directory is missing or empty.
    /// - Throws: ``Error/notAStore(path:reason:)`` when the directory holds something else,
    ///   ``Error/writeFailed(path:cause:)`` when it cannot be created.
    public static func create(at directory: URL, configuration: Configuration = Configuration()) async throws -> AttachmentStore {
        let (layout, database) = try await BlockingPool.run { () throws -> (StoreLayout, any SQLDatabase) in
            let layout = StoreLayout(directory: directory)
            if let external = configuration.catalogDatabase {
                try layout.createWorkingFolder()
                return (layout, external)
            }
            try layout.createIfNeeded()
            return (layout, try SQLiteCatalogDatabase(path: layout.catalogPath, busyTimeout: configuration.busyTimeout))
        }
        return try await open(layout, database, configuration)
    }

    private static func open(_ layout: StoreLayout, _ database: any SQLDatabase, _ configuration: Configuration) async throws -> AttachmentStore {
        let catalog = try await Catalog.open(database, placement: configuration.blobPlacement,
                                             objectStore: configuration.objectStore?.location)
        return AttachmentStore(layout: layout, catalog: catalog, configuration: configuration)
    }
}

extension AttachmentStore.Configuration {
    /// ``trashRetention`` in seconds.
    var trashRetentionInterval: TimeInterval {
        TimeInterval(trashRetention.components.seconds) + TimeInterval(trashRetention.components.attoseconds) / 1e18
    }
}
