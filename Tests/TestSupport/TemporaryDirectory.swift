import Foundation

/// A fresh folder under the system temp directory, removed when the value is released.
///
/// The folder is world-searchable (0755) so a child process running as another user
/// can reach what a test puts inside.
public final class TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder in `parent` (the system temp directory, `TMPDIR`, unless given).
    public init(_ label: String = "test", under parent: URL = FileManager.default.temporaryDirectory) throws {
        let url = parent
            .appending(path: "attachstore-\(label)-\(UUID().uuidString.prefix(8))", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        self.url = url
    }

    deinit {
        // Blob files are read-only; make them removable first.
        if let enumerator = FileManager.default.enumerator(atPath: path) {
            while let relative = enumerator.nextObject() as? String {
                chmod(path + "/" + relative, 0o755)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// The folder's path.
    public var path: String { url.path(percentEncoded: false) }

    /// A path inside the folder (not created).
    public func appending(_ name: String) -> URL { url.appending(path: name) }
}
