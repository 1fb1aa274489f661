import ArgumentParser
import AttachmentStore
import AttachmentSync

/// `attach sync pull URL`: one round of pulling a peer's changes.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Exchange records with peers (bytes move only when fetched).",
        subcommands: [Pull.self]
    )

    /// `attach sync pull URL...`.
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Pull every new note, attachment record and deletion from peers; no blob bytes move."
        )
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tokenOption: PeerTokenOption
        @Argument(help: ArgumentHelp("Peer URLs, for example http://127.0.0.1:8081.", valueName: "URL"))
        var peers: [String] = []
        @Flag(help: "Print one JSON report per peer.") var json = false

        func validate() throws {
            if peers.isEmpty && tokenOption.peersFile == nil { throw ValidationError("name at least one peer URL (or give --peers-file)") }
        }

        func run() async throws {
            let resolved = try tokenOption.peers(peers)
            let store = try await storeOptions.open()
            let http = try tokenOption.httpClient()
            var failed = false
            for peer in resolved {
                do {
                    let report = try await SyncRound(peer: peer, http: http.http).run(into: store)
                    if json {
                        Console.json(report)
                    } else {
                        Console.out("\(peer): \(report.changes) changes in \(report.batches) batches: "
                            + "\(report.applied.notesApplied) notes, \(report.applied.attachmentsApplied) attachments, "
                            + "\(report.applied.deletionsApplied) deletions applied, \(report.applied.ignored) already known; "
                            + "\(report.applied.newRemoteBlobs) new blobs left on the peer until fetched"
                            + (report.applied.invalid > 0 ? "; \(report.applied.invalid) invalid changes skipped" : ""))
                    }
                    for problem in report.applied.problems {
                        Console.error("attach: \(peer) sent an invalid change, skipped: \(PeerText.escaped(problem, limit: 500, markup: false))")
                    }
                } catch let error as SyncError {
                    Console.error("attach: \(error)")
                    failed = true
                }
            }
            await http.shutdown()
            if failed { throw CommandFailure(code: ExitStatus.damage) }
        }
    }
}
