import ArgumentParser
import AttachmentStore
import Foundation

/// `--store DIR`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store folder.", discussion: "Default: $ATTACH_STORE, else ./attach-data.", valueName: "DIR"))
    var store: String?

    /// The store folder this invocation means.
    var url: URL {
        let path = store ?? ProcessInfo.processInfo.environment["ATTACH_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? "attach-data"
        return URL(filePath: path, directoryHint: .isDirectory)
    }

    /// Opens the existing store.
    func open(configuration: AttachmentStore.Configuration = AttachmentStore.Configuration()) async throws -> AttachmentStore {
        try await AttachmentStore.open(at: url, configuration: configuration)
    }
}
