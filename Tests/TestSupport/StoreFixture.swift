import AttachmentStore
import Foundation

/// A new, empty store in its own temporary folder, for one test.
public struct StoreFixture: Sendable {
    /// The folder holding the store (removed when the fixture is released).
    public let directory: TemporaryDirectory
    /// The store.
    public let store: AttachmentStore

    /// Creates the folder and the store in `<temp>/store`.
    public init(_ label: String = "store", configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws {
        directory = try TemporaryDirectory(label)
        store = try await AttachmentStore.create(at: directory.appending("store"), configuration: configuration)
    }

    /// The store folder.
    public var storeURL: URL { directory.appending("store") }

    /// Paths of every file in the store, relative to it, except the catalog's own files.
    public var blobAndTemporaryFiles: [String] {
        Files.tree(storeURL).filter { !$0.hasPrefix("catalog.sqlite") && !$0.hasPrefix("cache/") }
    }
}
