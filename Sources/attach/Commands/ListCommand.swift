import ArgumentParser
import AttachmentStore

/// `attach list`: lists attachments, all or one note's.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List attachments: id, note, position, size, type, pixels, file name."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: ArgumentHelp("Only this note's attachments (id or unique prefix).", valueName: "ID"))
    var note: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let attachments = if let note {
            try await store.attachments(of: try await store.resolveNoteID(note))
        } else {
            try await store.allAttachments()
        }
        if json { return Console.json(attachments) }
        AttachmentTable.print(attachments)
    }
}

/// The table `list` and `note show` print.
enum AttachmentTable {
    static func print(_ attachments: [Attachment]) {
        let header = ["ID", "NOTE", "#", "SIZE", "TYPE", "PIXELS", "FILE"]
        let rows = attachments.map {
            [Formatting.short($0.id.rawValue), Formatting.short($0.noteID.rawValue), String($0.position),
             Formatting.bytes($0.byteCount), $0.mediaType, Formatting.dimensions($0),
             $0.filename + ($0.availability == .remote ? "  (remote)" : "")]
        }
        for line in Formatting.table([header] + rows) { Console.out(line) }
    }
}
