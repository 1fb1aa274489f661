import ArgumentParser
import AttachmentStore

/// `attach rm`: moves attachments to the trash, or deletes them for good (their notes stay).
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Move attachments to the trash (restorable on every peer); their notes stay.",
        discussion: "With --purge they are deleted for good at once, on every peer, and `attach gc` reclaims the bytes later."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("Attachments to delete (ids or unique prefixes).", valueName: "ATTACHMENT"))
    var attachments: [String]
    @Flag(help: "Delete for good instead of moving to the trash.") var purge = false

    func validate() throws {
        if attachments.isEmpty { throw ValidationError("name at least one attachment") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        for text in attachments {
            let id = try await store.resolveAttachmentID(text)
            if purge {
                try await store.deleteAttachment(id)
                Console.out("deleted attachment \(id) for good")
            } else {
                try await store.moveAttachmentToTrash(id)
                Console.out("moved attachment \(id) to the trash (attach trash restore \(Formatting.short(id.rawValue)) brings it back)")
            }
        }
    }
}
