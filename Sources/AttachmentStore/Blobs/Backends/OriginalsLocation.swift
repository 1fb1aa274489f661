/// Where a store created with a configuration keeps its originals, as one value: files in the
/// store folder, rows of its catalog, or an object store. Being one value, it cannot name an
/// object store together with another placement.
public enum OriginalsLocation: Sendable {
    /// Content-addressed files under the store folder's `blobs/` (the default).
    case files
    /// Inside the catalog (kept for comparison in `make bench`).
    case catalog
    /// In `store`, one object per blob named by its hash. A store created with one records its
    /// ``BlobObjectStore/location`` and must be opened with the same one afterwards.
    case objectStore(any BlobObjectStore)

    /// The placement this location gives a new store.
    public var placement: BlobPlacement {
        switch self {
        case .files: .files
        case .catalog: .catalog
        case .objectStore: .objectStore
        }
    }

    /// The object store, when the originals live in one.
    public var objectStore: (any BlobObjectStore)? {
        if case .objectStore(let store) = self { return store }
        return nil
    }
}
