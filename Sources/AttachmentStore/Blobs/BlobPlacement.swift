/// Where a store keeps original bytes. Chosen when the store is created and recorded in its
/// catalog; opening an existing store always uses what it was created with.
public enum BlobPlacement: String, Sendable, Codable, CaseIterable {
    /// Content-addressed, read-only files under `blobs/` (the default, and the fast one).
    case files
    /// Inside the catalog, in a SQLite BLOB column. Kept for comparison (`make bench`): it
    /// makes the database as large as the photos and every read goes through SQLite.
    case catalog
    /// In an object store outside the store folder (S3), one object per blob named by its
    /// hash; set by ``AttachmentStore/Configuration/objectStore``. The store folder keeps the
    /// staging area and derived caches (thumbnails, originals read back).
    case objectStore
}
