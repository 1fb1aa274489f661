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
    @Option(help: ArgumentHelp("Only attachments whose bytes are in this state: present, remote, fetching, evicted or damaged.",
                               valueName: "STATE"))
    var state: Attachment.State?
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        var attachments = if let note {
            try await store.attachments(of: try await store.resolveNoteID(note))
        } else {
            try await store.allAttachments()
        }
        if let state { attachments = attachments.filter { $0.state == state } }
        if json { return Console.json(attachments) }
        AttachmentTable.print(attachments)
    }
}

/// The table `list` and `note show` print.
enum AttachmentTable {
    static func print(_ attachments: [Attachment]) {
        let header = ["ID", "NOTE", "#", "SIZE", "TYPE", "PIXELS", "STATE", "FILE"]
        let rows = attachments.map {
            [Formatting.short($0.id.rawValue), Formatting.short($0.noteID.rawValue), String($0.position),
             Formatting.bytes($0.byteCount), $0.mediaType, Formatting.dimensions($0), state($0),
             $0.motion.map { [name = $0.filename] motion in "\(name) + \(motion.filename) (Live Photo)" } ?? $0.filename]
        }
        for line in Formatting.table([header] + rows) { Console.out(line) }
    }

    /// The state, with the bytes so far while fetching.
    private static func state(_ attachment: Attachment) -> String {
        guard attachment.state == .fetching, let fetched = attachment.fetchedBytes else { return attachment.state.rawValue }
        return "fetching \(Int(Double(fetched) / Double(max(attachment.byteCount, 1)) * 100))%"
    }
}

extension Attachment.State: ExpressibleByArgument {}
