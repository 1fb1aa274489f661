import ArgumentParser
import AttachmentStore

/// `attach rm`: deletes attachments (their notes stay).
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete attachments; their notes stay. `attach gc` reclaims the bytes later."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("Attachments to delete (ids or unique prefixes).", valueName: "ATTACHMENT"))
    var attachments: [String]

    func validate() throws {
        if attachments.isEmpty { throw ValidationError("name at least one attachment") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        for text in attachments {
            let id = try await store.resolveAttachmentID(text)
            try await store.deleteAttachment(id)
            Console.out("deleted attachment \(id)")
        }
    }
}
