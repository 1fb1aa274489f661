import AttachmentS3
import Foundation
import S3Client

extension BlobStorageLocation {
    /// The environment variable read when no `--blobs` is given.
    static let environmentKey = "ATTACH_BLOBS"

    /// Parses a `--blobs` value: `files` (the default: files in the store folder),
    /// `file:///PATH` (a directory outside it) or
    /// `s3://BUCKET[/PREFIX][?endpoint=URL&region=REGION&addressing=path|virtual&ca_bundle=FILE]`
    /// (what the URL leaves out comes from the environment: see `S3Configuration.init(url:environment:)`).
    /// - Throws: ``BlobLocationError`` naming what is wrong and what would work.
    init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(BlobLocationError) {
        if text.isEmpty || text == "files" {
            self = .files
            return
        }
        if let url = URL(string: text), url.scheme?.lowercased() == "file" {
            // file://relative/path would silently mean /path on a host named "relative".
            guard ["", "localhost"].contains(url.host() ?? ""), url.path.hasPrefix("/"), url.path.count > 1, url.query == nil else {
                throw BlobLocationError(text: text, reason: "expected file:///ABSOLUTE/PATH")
            }
            self = .directory(URL(filePath: url.path, directoryHint: .isDirectory))
            return
        }
        guard var components = URLComponents(string: text), components.scheme?.lowercased() == "s3" else {
            throw BlobLocationError(text: text, reason: "expected `files`, file:///PATH or s3://BUCKET[/PREFIX][?endpoint=https://HOST:PORT]")
        }
        let prefix = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        components.path = ""
        do {
            self = .s3(try S3Configuration(url: components.string ?? text, environment: environment), prefix: prefix)
        } catch {
            throw BlobLocationError(text: text, reason: error.description)
        }
    }

    /// The location from `ATTACH_BLOBS`, or ``files`` when it is not set.
    /// - Throws: ``BlobLocationError`` when the variable is set but malformed.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(BlobLocationError) -> BlobStorageLocation {
        try BlobStorageLocation(parsing: environment[environmentKey] ?? "", environment: environment)
    }
}

/// A `--blobs` value or `ATTACH_BLOBS` that cannot be used.
struct BlobLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value as given.
    let text: String
    /// What is wrong with it.
    let reason: String

    var description: String { "--blobs \(text): \(reason)" }
}
