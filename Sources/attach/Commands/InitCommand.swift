import ArgumentParser
import AttachmentStore

/// `attach init`: creates a store folder.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store (a missing or empty folder); an existing store is left as it is."
    )

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let store = try await storeOptions.create()
        Console.out("store ready at \(store.directory.path(percentEncoded: false))")
    }
}
