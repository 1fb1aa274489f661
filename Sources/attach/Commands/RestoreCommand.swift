import ArgumentParser
import AttachmentStore
import Foundation

/// `attach restore BACKUP --store NEW`: a working store from a backup.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a new store from a folder `attach backup` wrote.",
        discussion: """
            NEW (--store) must be missing or empty. Originals are hard-linked from the backup when
            both are on one filesystem, copied otherwise. The new store is the backed-up store
            again (same peer id): use it instead of the old one, not beside it as a peer.
            """
    )

    @Argument(help: ArgumentHelp("A folder `attach backup` wrote.", valueName: "BACKUP"))
    var backup: String
    @Option(help: ArgumentHelp("The new store: a missing or empty folder.", valueName: "DIR"))
    var store: String
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let target = URL(filePath: store, directoryHint: .isDirectory)
        try StoreOwner.becomeOwner(of: target)
        let progress = BackupProgressBar()
        let report = try await AttachmentStore.restore(from: URL(filePath: backup, directoryHint: .isDirectory),
                                                       to: target, progress: progress.update)
        progress.finish()
        if json { return Console.json(report) }
        Console.out(BackupCommand.summary(report, verb: "restored"))
    }
}
