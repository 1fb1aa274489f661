import AttachmentStore
import Foundation
import S3Client

/// Where a store keeps its originals: content-addressed files in the store folder, files in a
/// directory outside it (such as a filesystem several servers mount), or objects in an S3
/// bucket. (The `attach` command reads one from `--blobs` or `ATTACH_BLOBS`.)
///
/// ```swift
/// var configuration = AttachmentStore.Configuration()
/// let s3 = try S3Configuration.fromEnvironment()
/// configuration.originals = BlobStorageLocation.s3(s3, prefix: "photos").originals()
/// ```
public enum BlobStorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// Files in the store folder.
    case files
    /// Files in a directory outside the store folder (``DirectoryBlobObjectStore``).
    case directory(URL)
    /// Objects in an S3 bucket under `prefix`.
    case s3(S3Configuration, prefix: String)

    /// Where a store configured with this location keeps its originals (for
    /// `AttachmentStore.Configuration.originals`).
    public func originals() -> OriginalsLocation {
        objectStore().map(OriginalsLocation.objectStore) ?? .files
    }

    /// The object store this location names; `nil` for files in the store folder.
    public func objectStore() -> (any BlobObjectStore)? {
        switch self {
        case .files: nil
        case .directory(let url): DirectoryBlobObjectStore(directory: url)
        case .s3(let configuration, let prefix): S3BlobObjectStore(client: S3Client(configuration: configuration), prefix: prefix)
        }
    }

    /// `files`, or the bucket, prefix and endpoint (never a secret).
    public var description: String {
        switch self {
        case .files: "files"
        case .directory(let url): "file://" + url.path(percentEncoded: false)
        case .s3(let configuration, let prefix): "s3://\(configuration.bucket)/\(prefix) at \(configuration.endpoint.absoluteString)"
        }
    }
}
