import AttachmentStore
import Foundation
import S3Client

/// Where a store keeps its originals, as `--blobs` and `ATTACH_BLOBS` say it: `files` (the
/// default: content-addressed files in the store folder), `file:///PATH` (a directory outside
/// it, such as a filesystem several servers mount) or
/// `s3://BUCKET[/PREFIX]?endpoint=URL[&region=REGION]` (an S3 bucket; credentials from
/// `S3_ACCESS_KEY` and `S3_SECRET_KEY`, region from `S3_REGION` when the URL has none).
///
/// ```swift
/// var configuration = AttachmentStore.Configuration()
/// configuration.objectStore = try BlobStorageLocation(parsing: "s3://photos?endpoint=http://127.0.0.1:9000").objectStore()
/// ```
public enum BlobStorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// Files in the store folder.
    case files
    /// Files in a directory outside the store folder (``DirectoryBlobObjectStore``).
    case directory(URL)
    /// Objects in an S3 bucket under `prefix`.
    case s3(S3Configuration, prefix: String)

    /// The environment variable read when no `--blobs` is given.
    public static let environmentKey = "ATTACH_BLOBS"

    /// Parses `files` or an `s3://` URL.
    /// - Throws: ``BlobStorageLocationError`` naming what is wrong and what would work.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(BlobStorageLocationError) {
        if text.isEmpty || text == "files" {
            self = .files
            return
        }
        if let url = URL(string: text), url.scheme?.lowercased() == "file" {
            guard url.path.hasPrefix("/"), url.path.count > 1, url.query == nil else {
                throw BlobStorageLocationError(text: text, reason: "expected file:///ABSOLUTE/PATH")
            }
            self = .directory(URL(filePath: url.path, directoryHint: .isDirectory))
            return
        }
        guard var components = URLComponents(string: text), components.scheme?.lowercased() == "s3" else {
            throw BlobStorageLocationError(text: text, reason: "expected `files`, file:///PATH or s3://BUCKET[/PREFIX]?endpoint=http://HOST:PORT")
        }
        let prefix = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        components.path = ""
        do {
            self = .s3(try S3Configuration(url: components.string ?? text, environment: environment), prefix: prefix)
        } catch {
            throw BlobStorageLocationError(text: text, reason: error.description)
        }
    }

    /// The location from `ATTACH_BLOBS`, or ``files`` when it is not set.
    /// - Throws: ``BlobStorageLocationError`` when the variable is set but malformed.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(BlobStorageLocationError) -> BlobStorageLocation {
        try BlobStorageLocation(parsing: environment[environmentKey] ?? "", environment: environment)
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

/// A `--blobs` value or `ATTACH_BLOBS` that cannot be used.
public struct BlobStorageLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value as given.
    public let text: String
    /// What is wrong with it.
    public let reason: String

    public var description: String { "--blobs \(text): \(reason)" }
}
