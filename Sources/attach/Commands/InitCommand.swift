import ArgumentParser
import AttachmentStore

/// `attach init`: creates a store folder.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store (a missing or empty folder); an existing store is left as it is."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var budgetOptions: StorageBudgetOptions

    func run() async throws {
        let store = try await storeOptions.create()
        if budgetOptions.isGiven { try await store.setStorageBudget(budgetOptions.applied(to: try await store.storageBudget())) }
        Console.out("store ready at \(store.directory.path(percentEncoded: false))")
    }
}
