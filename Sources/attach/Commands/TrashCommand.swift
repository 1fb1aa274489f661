import ArgumentParser
import AttachmentStore
import Foundation

/// `attach trash`: what was deleted, restorable on every peer until it is purged.
struct TrashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List, restore or purge deleted notes and attachments (restorable on every peer until purged).",
        subcommands: [List.self, Restore.self, Purge.self, Empty.self],
        defaultSubcommand: List.self
    )

    /// `attach trash list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List what is in the trash, most recently deleted first.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var trashOptions: TrashOptions
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() async throws {
            let items = try await storeOptions.open(configuration: trashOptions.applied()).trash()
            if json { return Console.json(items) }
            if items.isEmpty { return Console.out("the trash is empty") }
            var rows = [["ID", "KIND", "DELETED", "PURGED AFTER", "ATTACHMENTS", "SIZE", "TITLE"]]
            for item in items {
                rows.append([Formatting.short(item.id), item.kind.rawValue, item.trashedAt.formatted(.iso8601),
                             item.purgeAt.formatted(.iso8601.year().month().day()), String(item.attachmentCount),
                             Formatting.bytes(item.byteCount), item.title])
            }
            for line in Formatting.table(rows) { Console.out(line) }
        }
    }

    /// `attach trash restore ID...`.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Take notes or attachments out of the trash; the restore syncs to every peer."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("What to restore (ids or unique prefixes, as `attach trash list` shows them).", valueName: "ID"))
        var items: [String]

        func validate() throws {
            if items.isEmpty { throw ValidationError("name at least one item of the trash") }
        }

        func run() async throws {
            let store = try await storeOptions.open()
            for text in items {
                let item = try await store.restoreFromTrash(text)
                Console.out("restored \(item.kind.rawValue) \(item.id) (\(item.title.isEmpty ? "untitled" : item.title))")
            }
        }
    }

    /// `attach trash purge ID...`.
    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Delete items of the trash for good, on every peer. `attach gc` reclaims the bytes later."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("What to purge (ids or unique prefixes).", valueName: "ID")) var items: [String]

        func validate() throws {
            if items.isEmpty { throw ValidationError("name at least one item of the trash") }
        }

        func run() async throws {
            let store = try await storeOptions.open()
            for text in items {
                try await store.purgeFromTrash(text)
                Console.out("purged \(text)")
            }
        }
    }

    /// `attach trash empty`.
    struct Empty: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "empty",
            abstract: "Delete everything in the trash for good, on every peer. `attach gc` reclaims the bytes later."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            let report = try await storeOptions.open().emptyTrash()
            if json { return Console.json(report) }
            Console.out("purged \(report.notes) note\(report.notes == 1 ? "" : "s") and \(report.attachments) "
                + "attachment\(report.attachments == 1 ? "" : "s") from the trash")
        }
    }
}
