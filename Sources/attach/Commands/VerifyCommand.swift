import ArgumentParser
import AttachmentStore
import AttachmentSync

/// `attach verify`: re-hashes every blob and checks every reference.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every blob, check every reference; exit 2 and name the damage if any.",
        discussion: """
            With --repair, each damaged blob is quarantined (moved to quarantine/, never served) and a copy \
            fetched from a peer that holds the same hash, verified, and put back; statistics the catalog keeps \
            that disagree with its records are recounted; the store is then verified again. Peers: --peer URL (repeatable) and --peers-file, else every peer this store has pulled from.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "Quarantine damaged blobs and repair them from a peer.") var repair = false
    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer to repair from (repeatable).", valueName: "URL"))
    var peers: [String] = []
    @OptionGroup var tokenOption: PeerTokenOption
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        guard repair else { return try report(try await storeOptions.open().verify()) }
        let http = try tokenOption.httpClient()
        let found: VerificationReport
        do {
            // The fetcher repairs through the store it is installed in; its peers are set once the
            // store can name the ones it has pulled from.
            let fetcher = BlobFetcher(peers: [], http: http.http)
            var configuration = AttachmentStore.Configuration()
            configuration.remoteBlobSource = fetcher
            let store = try await storeOptions.open(configuration: configuration)
            fetcher.setPeers(try tokenOption.peers(peers.isEmpty && tokenOption.peersFile == nil ? try await store.knownPeers() : peers))
            let before = try await store.verify()
            if !before.damage.isEmpty {
                let outcome = try await store.repair(before.damage)
                if !json {
                    for hash in outcome.repaired { Console.out("REPAIRED blob \(hash) from a peer's copy") }
                    for failed in outcome.unrepaired { Console.out("NOT REPAIRED blob \(failed.hash): \(failed.reason)") }
                }
            }
            if !before.miscountedFigures.isEmpty {
                try await store.recountStatistics()
                if !json { Console.out("RECOUNTED the statistics the catalog keeps") }
            }
            found = before.damage.isEmpty && before.miscountedFigures.isEmpty ? before : try await store.verify()
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
        try report(found)
    }

    /// Prints `report` and fails with the damage exit status unless it is clean.
    private func report(_ report: VerificationReport) throws {
        if json {
            Console.json(report)
        } else {
            for damage in report.damage {
                Console.out("DAMAGED blob \(damage.hash) (\(damage.kind.rawValue)): \(damage.detail)")
                for broken in damage.brokenAttachments {
                    Console.out("  breaks attachment \(broken.id) \"\(broken.filename)\" of note \(broken.noteID)")
                }
                for key in damage.brokenImageKeys { Console.out("  breaks image key \"\(key)\"") }
            }
            for problem in report.catalogProblems { Console.out("DAMAGED catalog: \(problem)") }
            for problem in report.miscountedFigures { Console.out("MISCOUNTED: \(problem)") }
            let verdict = report.isClean ? "clean" : "DAMAGED"
            Console.out("\(verdict): \(report.blobsChecked) blobs (\(Formatting.bytes(report.bytesChecked))) re-hashed, "
                + "\(report.attachmentsChecked) attachments checked, \(report.damage.count) damaged blobs; "
                + "\(report.unreferencedFiles) unreferenced files and \(report.temporaryFiles) temporary files for gc")
        }
        if !report.isClean { throw CommandFailure(code: ExitStatus.damage) }
    }
}
