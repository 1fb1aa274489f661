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
            again (same peer id): use it instead of the old one, not beside it as a peer. With a
            storage budget (--max-local-bytes, kept in the backup), the restored store is brought
            within it: the least recently read originals a peer holds (--peer, else the peers the
            store pulled from) are evicted.
            """
    )

    @Argument(help: ArgumentHelp("A folder `attach backup` wrote.", valueName: "BACKUP"))
    var backup: String
    @Option(help: ArgumentHelp("The new store: a missing or empty folder.", valueName: "DIR"))
    var store: String
    @Flag(help: "Print the report as JSON.") var json = false
    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer that may hold originals evicted under the storage budget (repeatable).",
                                                          valueName: "URL"))
    var peers: [String] = []
    @OptionGroup var tokenOption: PeerTokenOption

    func run() async throws {
        let target = URL(filePath: store, directoryHint: .isDirectory)
        try StoreOwner.becomeOwner(of: target)
        let progress = BackupProgressBar()
        let report = try await AttachmentStore.restore(from: URL(filePath: backup, directoryHint: .isDirectory),
                                                       to: target, progress: progress.update)
        progress.finish()
        let budget = try await keepBudget()
        if json { return Console.json(report) }
        Console.out(BackupCommand.summary(report, verb: "restored"))
        if let summary = budget { Console.out(summary) }
    }

    /// Brings the restored store within its storage budget; what that did, when it has one.
    private func keepBudget() async throws -> String? {
        let http = try tokenOption.httpClient()
        do {
            let options = try StoreOptions.parse(["--store", store])
            let (restored, _) = try await StorageBudgetKeeper.open(options, peers: peers, tokenOption: tokenOption, http: http)
            let summary = try await StorageBudgetKeeper(store: restored).summary
            await http.shutdown()
            return summary
        } catch {
            await http.shutdown()
            throw error
        }
    }
}
