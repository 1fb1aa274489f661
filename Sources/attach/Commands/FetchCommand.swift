import ArgumentParser
import AttachmentStore
import AttachmentSync

/// `attach fetch ATTACHMENT | --all`: brings the bytes of remote attachments from peers.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch the bytes of attachments that arrived by sync, verified against their hash, resumable.",
        discussion: """
            Peers: --peer URL (repeatable) and --peers-file, else every peer this store has pulled from. A store with a \
            storage budget (--max-local-bytes) stays within it: as originals arrive, the least recently read ones a peer \
            holds are evicted, and fetched again when read.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var tokenOption: PeerTokenOption
    @Argument(help: ArgumentHelp("The attachment (id or unique prefix).", valueName: "ATTACHMENT"))
    var attachment: String?
    @Flag(help: "Fetch every attachment whose bytes are not here.") var all = false
    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer to fetch from (repeatable).", valueName: "URL"))
    var peers: [String] = []

    func validate() throws {
        if (attachment == nil) == !all { throw ValidationError("give an ATTACHMENT or --all") }
    }

    func run() async throws {
        let http = try tokenOption.httpClient()
        do {
            // The fetcher is also the holders an eviction under the budget must find.
            let (store, fetcher) = try await StorageBudgetKeeper.open(storeOptions, peers: peers, tokenOption: tokenOption, http: http,
                                                                       requirePeers: true)
            try await fetch(into: store, with: fetcher)
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    private func fetch(into store: AttachmentStore, with fetcher: BlobFetcher) async throws {
        var wanted: [(BlobHash, Int64)]
        if let attachment {
            let found = try await store.attachment(try await store.resolveAttachmentID(attachment))
            wanted = found.availability == .remote ? [(found.blobHash, found.byteCount)] : []
        } else {
            wanted = try await store.remoteBlobs()
        }
        if wanted.isEmpty { return Console.out("nothing to fetch: the bytes are here") }
        var budget = try await StorageBudgetKeeper(store: store)

        let total = wanted.reduce(Int64(0)) { $0 + $1.1 }
        let bar = ProgressBar(total: total, items: wanted.count)
        var done: Int64 = 0
        var failures: [String] = []
        for (index, (hash, byteCount)) in wanted.enumerated() {
            var outcome: FetchEvent?
            for await event in fetcher.events(for: hash, byteCount: byteCount, into: store) {
                switch event {
                case .progress(let received, _): bar.update(done: done + received, itemsDone: index, label: hash.short)
                case .completed, .failed: outcome = event
                }
            }
            done += byteCount
            bar.update(done: done, itemsDone: index + 1, label: hash.short)
            if case .failed(let error)? = outcome {
                failures.append("\(hash.short): \(error)" + (ErrorHint.hint(for: error).map { "; \($0)" } ?? ""))
            } else {
                try await budget.added(byteCount)
            }
        }
        bar.finish()
        Console.out("fetched \(wanted.count - failures.count) of \(wanted.count) blobs (\(Formatting.bytes(fetcher.bytesReceived)) received)"
            + (failures.isEmpty ? "" : "; \(failures.count) failed:"))
        if let summary = budget.summary { Console.out(summary) }
        for failure in failures { Console.error("  \(failure)") }
        if !failures.isEmpty { throw CommandFailure(code: ExitStatus.damage) }
    }
}
