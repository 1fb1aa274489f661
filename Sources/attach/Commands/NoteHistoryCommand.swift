import ArgumentParser
import AttachmentStore
import Foundation

extension NoteCommand {
    /// `attach note history ID [--restore N|VERSION] [--json]`.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List a note's earlier titles and bodies, newest first, or restore one as a new edit.",
            discussion: "Each edit keeps the text it replaced (at most 20 versions a note), a peer's newer edit included, "
                + "so text replaced by sync stays here to read and restore."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The note (id or unique prefix).") var note: String
        @Option(help: ArgumentHelp("Make this version the note's text again: its number in the list (1 is the newest) or its version.",
                                   valueName: "N|VERSION"))
        var restore: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let store = try await storeOptions.open()
            let id = try await store.resolveNoteID(note)
            let versions = try await store.noteVersions(of: id)
            if let restore {
                let chosen = Int(restore).flatMap { number in versions.indices.contains(number - 1) ? versions[number - 1] : nil }
                    ?? versions.first { $0.version == restore }
                guard let chosen else {
                    throw ValidationError("note \(id) has \(versions.count) earlier version\(versions.count == 1 ? "" : "s"); "
                        + "give a number from 1 to \(versions.count) or a version from `attach note history \(Formatting.short(id.rawValue))`")
                }
                let restored = try await store.restoreNoteVersion(id, version: chosen.version)
                return json ? Console.json(restored) : Console.out("restored note \(id) to the version of \(chosen.updatedAt.formatted(.iso8601))")
            }
            if json { return Console.json(versions) }
            if versions.isEmpty { return Console.out("note \(id) has no earlier versions") }
            let rows = versions.enumerated().map { index, version in
                [String(index + 1), version.updatedAt.formatted(.iso8601), version.title,
                 String(version.body.split(separator: "\n", omittingEmptySubsequences: false).first ?? "").prefix(60) + (version.body.count > 60 ? "…" : "")]
            }
            for line in Formatting.table([["#", "WRITTEN", "TITLE", "BODY"]] + rows) { Console.out(line) }
        }
    }
}
