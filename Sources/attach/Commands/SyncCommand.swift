import ArgumentParser
import AttachmentStore
import AttachmentSync

/// `attach sync URL...` (push, then pull), `attach sync push URL...`, `attach sync pull URL...`:
/// one round with each peer.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Exchange records with peers, both ways (bytes of originals go to the peer; the peer's move only when fetched).",
        discussion: "`attach sync URL` pushes this store's changes and originals to the peer, then pulls the peer's changes.",
        subcommands: [Both.self, Pull.self, Push.self],
        defaultSubcommand: Both.self
    )

    /// The peers and credentials every direction takes, and the loop over the peers.
    struct PeerArguments: ParsableArguments {
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var tokenOption: PeerTokenOption
        @Argument(help: ArgumentHelp("Peer URLs, for example http://127.0.0.1:8081.", valueName: "URL"))
        var peers: [String] = []
        @Flag(help: "Print one JSON report per peer and direction.") var json = false

        func validate() throws {
            if peers.isEmpty && tokenOption.peersFile == nil { throw ValidationError("name at least one peer URL (or give --peers-file)") }
        }

        /// Opens the store and runs `body` with each peer; a peer that fails is reported and the
        /// others still run; the exit status is 2 when any failed.
        func forEachPeer(_ body: (AttachmentStore, Peer, PeerHTTPClient) async throws -> Void) async throws {
            let resolved = try tokenOption.peers(peers)
            let store = try await storeOptions.open()
            let http = try tokenOption.httpClient()
            var failed = false
            for peer in resolved {
                do {
                    try await body(store, peer, http)
                } catch let error as SyncError {
                    Console.error("attach: \(error)" + (ErrorHint.hint(for: error).map { "; \($0)" } ?? ""))
                    failed = true
                }
            }
            await http.shutdown()
            if failed { throw CommandFailure(code: ExitStatus.damage) }
        }

        func pull(_ store: AttachmentStore, from peer: Peer, http: PeerHTTPClient) async throws {
            let report = try await SyncRound(peer: peer, http: http.http).run(into: store)
            if json {
                Console.json(report)
            } else {
                Console.out("\(peer): pulled \(report.changes) changes in \(report.batches) batches: "
                    + "\(report.applied.notesApplied) notes, \(report.applied.attachmentsApplied) attachments, "
                    + "\(report.applied.deletionsApplied) deletions applied, \(report.applied.ignored) already known; "
                    + "\(report.applied.newRemoteBlobs) new blobs left on the peer until fetched"
                    + (report.applied.invalid > 0 ? "; \(report.applied.invalid) invalid changes skipped" : ""))
            }
            for problem in report.applied.problems {
                Console.error("attach: \(peer) sent an invalid change, skipped: \(PeerText.escaped(problem, limit: 500, markup: false))")
            }
        }

        func push(_ store: AttachmentStore, to peer: Peer, http: PeerHTTPClient) async throws {
            let report = try await PushRound(peer: peer, http: http.http).run(from: store)
            if json {
                Console.json(report)
            } else {
                Console.out("\(peer): pushed \(report.changes) changes in \(report.batches) batches: "
                    + "\(report.applied.notesApplied) notes, \(report.applied.attachmentsApplied) attachments, "
                    + "\(report.applied.deletionsApplied) deletions applied there, \(report.applied.ignored) already known; "
                    + "\(report.blobsSent) originals sent (\(Formatting.bytes(report.bytesSent)))"
                    + (report.applied.invalid > 0 ? "; \(report.applied.invalid) refused by the peer" : ""))
            }
            for problem in report.applied.problems {
                Console.error("attach: \(peer) refused a change of this store: \(PeerText.escaped(problem, limit: 500, markup: false))")
            }
        }
    }

    /// `attach sync URL...`: push, then pull.
    struct Both: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "both",
            abstract: "Push this store's changes and originals to each peer, then pull the peer's changes (the default).",
            shouldDisplay: false
        )
        @OptionGroup var arguments: PeerArguments

        func run() async throws {
            try await arguments.forEachPeer { store, peer, http in
                try await arguments.push(store, to: peer, http: http)
                try await arguments.pull(store, from: peer, http: http)
            }
        }
    }

    /// `attach sync pull URL...`.
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Pull every new note, attachment record and deletion from peers; no blob bytes move."
        )
        @OptionGroup var arguments: PeerArguments

        func run() async throws {
            try await arguments.forEachPeer { store, peer, http in try await arguments.pull(store, from: peer, http: http) }
        }
    }

    /// `attach sync push URL...`.
    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Push every new note, attachment record and deletion to peers, and the originals they lack (needs a push token)."
        )
        @OptionGroup var arguments: PeerArguments

        func run() async throws {
            try await arguments.forEachPeer { store, peer, http in try await arguments.push(store, to: peer, http: http) }
        }
    }
}
