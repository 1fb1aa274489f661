/// Where a store keeps original bytes. Chosen when the store is created and recorded in its
/// catalog; opening an existing store always uses what it was created with.
public enum BlobPlacement: String, Sendable, Codable, CaseIterable {
    /// Content-addressed, read-only files under `blobs/` (the default, and the fast one).
    case files
    /// Inside the catalog, in a SQLite BLOB column. Kept for comparison (`make bench`): it
    /// makes the database as large as the photos and every read goes through SQLite.
    case catalog
    /// In an object store outside the store folder (S3), one object per blob named by its
    /// hash; set by ``AttachmentStore/Configuration/originals``. The store folder keeps the
    /// staging area and derived caches (thumbnails, originals read back).
    case objectStore
}

/// What each placement means for the parts of the store that are not a backend: every decision
/// that depends on the placement is made here, in `Blobs/Backends/`, and asked by name.
extension BlobPlacement {
    /// Whether the originals are files under the store folder's `blobs/`: the placement whose
    /// files a restore checks for links, the storage budget evicts, and an interrupted eviction
    /// can leave behind.
    var keepsOriginalsAsFiles: Bool { self == .files }

    /// Whether the originals are rows of the catalog: a backup copies no file for them.
    var keepsOriginalsInCatalog: Bool { self == .catalog }

    /// Whether a staged blob is flushed to disk before it is committed (the catalog's own
    /// transaction makes its bytes durable).
    var syncsStagedBlobs: Bool { self != .catalog }

    /// Whether a backup turns the originals into files of its own folder, and so records files
    /// as the backup's placement.
    var backupTurnsOriginalsIntoFiles: Bool { self == .objectStore }

    /// The placement a catalog records the first time it is opened: what was asked for, unless
    /// the catalog already holds blobs from before the setting existed (their bytes are files).
    static func toRecord(asked: BlobPlacement, catalogHasBlobs: Bool) -> BlobPlacement {
        catalogHasBlobs ? .files : asked
    }

    /// Whether a store is opened with the object store it recorded: `recordedLocation` is the
    /// location it recorded (only an object-store placement records one), `given` the location
    /// of the object store it is opened with. Returns the mismatch, or `nil`.
    func mismatch(recordedLocation: String?, given: String?) -> AttachmentStore.Error? {
        guard self == .objectStore || given != nil, recordedLocation != given else { return nil }
        return .blobStorageMismatch(
            recorded: recordedLocation.map { "the object store \($0)" } ?? (self == .catalog ? "its catalog" : "files in the store folder"),
            given: given.map { "the object store \($0)" } ?? "no object store")
    }
}

extension BlobPlacement {
    /// Whether a catalog of this placement records where its originals are (an object store's
    /// location).
    var recordsLocation: Bool { self == .objectStore }
}
