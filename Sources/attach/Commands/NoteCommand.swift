import ArgumentParser
import AttachmentStore

/// `attach note`: create, list, show, edit and delete notes.
struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Create, list, show, edit and delete notes, and read or restore their earlier versions.",
        subcommands: [Add.self, List.self, Show.self, Edit.self, History.self, Remove.self]
    )

    /// `attach note add TITLE [--body TEXT]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a note and print its id.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The note's title.") var title: String
        @Option(help: "The note's body text.") var body = ""
        @Flag(help: "Print the note as JSON.") var json = false

        func run() async throws {
            let note = try await storeOptions.open().createNote(title: title, body: body)
            if json { return Console.json(note) }
            Console.out(note.id.rawValue)
        }
    }

    /// `attach note list [--search TEXT] [--sort updated|created|title]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List notes, most recently changed first (or as --sort says).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "Only notes in which each of these words begins a word of the title or body (any case).") var search: String?
        @Option(help: "updated (most recently changed first), created (most recently created first) or title (A to Z, numbers by value, untitled last).")
        var sort: NoteOrder = .updated
        @Option(help: "At most this many notes.") var limit = 100
        @Option(help: "Skip this many notes first.") var offset = 0
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() async throws {
            let store = try await storeOptions.open()
            let notes = try await store.notes(matching: search, order: sort, limit: limit, offset: offset)
            if json { return Console.json(notes) }
            var rows = [["ID", sort == .created ? "CREATED" : "UPDATED", "ATTACHMENTS", "TITLE"]]
            for note in notes {
                let count = try await store.attachmentCount(of: note.id)
                let date = sort == .created ? note.createdAt : note.updatedAt
                rows.append([Formatting.short(note.id.rawValue), date.formatted(.iso8601), String(count), note.title])
            }
            for line in Formatting.table(rows) { Console.out(line) }
        }
    }

    /// `attach note show ID`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a note, its body and its attachments.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The note (id or unique prefix).") var note: String
        @Flag(help: "Print JSON.") var json = false

        struct Shown: Encodable {
            var note: Note
            var attachments: [Attachment]
        }

        func run() async throws {
            let store = try await storeOptions.open()
            let id = try await store.resolveNoteID(note)
            let shown = Shown(note: try await store.note(id), attachments: try await store.attachments(of: id))
            if json { return Console.json(shown) }
            Console.out("\(shown.note.title)\n\(shown.note.id)  updated \(shown.note.updatedAt.formatted(.iso8601))")
            if !shown.note.body.isEmpty { Console.out("\n\(shown.note.body)") }
            Console.out("")
            if shown.attachments.isEmpty { return Console.out("(no attachments)") }
            AttachmentTable.print(shown.attachments)
        }
    }

    /// `attach note edit ID [--title T] [--body B]`.
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a note's title or body.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The note (id or unique prefix).") var note: String
        @Option(help: "The new title.") var title: String?
        @Option(help: "The new body.") var body: String?

        func validate() throws {
            if title == nil && body == nil { throw ValidationError("give --title, --body or both") }
        }

        func run() async throws {
            let store = try await storeOptions.open()
            let updated = try await store.updateNote(try await store.resolveNoteID(note), title: title, body: body)
            Console.out("updated note \(updated.id)")
        }
    }

    /// `attach note rm ID [--purge]`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Move notes, with their attachments, to the trash (restorable on every peer).",
            discussion: "With --purge they are deleted for good at once, on every peer, and `attach gc` reclaims the bytes later."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "Notes to delete (ids or unique prefixes).") var notes: [String]
        @Flag(help: "Delete for good instead of moving to the trash.") var purge = false

        func validate() throws {
            if notes.isEmpty { throw ValidationError("name at least one note") }
        }

        func run() async throws {
            let store = try await storeOptions.open()
            for text in notes {
                let id = try await store.resolveNoteID(text)
                if purge {
                    try await store.deleteNote(id)
                    Console.out("deleted note \(id) and its attachments for good")
                    continue
                }
                let count = try await store.attachmentCount(of: id)
                try await store.moveNoteToTrash(id)
                Console.out("moved note \(id) and its \(count) attachment\(count == 1 ? "" : "s") to the trash "
                    + "(attach trash restore \(Formatting.short(id.rawValue)) brings it back)")
            }
        }
    }
}

/// `attach note list --sort updated|created|title`: its raw values, listed in `--help` and completions.
extension NoteOrder: ExpressibleByArgument {}
