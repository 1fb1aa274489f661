import ArgumentParser
import AttachmentServer
import AttachmentSync
import Foundation
import Logging

/// `attach serve`: the HTTP API and the web UI over a store.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the web UI and the JSON API (default http://127.0.0.1:8080).",
        discussion: """
            Creates the store when the folder is missing or empty. Stops gracefully on SIGINT or
            SIGTERM: requests in flight, uploads included, finish first. Listening beyond
            loopback needs --token; writes must then send `Authorization: Bearer TOKEN`.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: ArgumentHelp("A token every write must carry as `Authorization: Bearer TOKEN`.",
                               discussion: "Default: $ATTACH_TOKEN; required when --host is not loopback.", valueName: "T"))
    var token: String?

    @Option(name: .customLong("max-upload"), help: ArgumentHelp("The largest upload in MiB (answered with 413 beyond).", valueName: "MIB"))
    var maxUploadMiB: Int64 = 256

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer to sync with continuously (repeatable).", valueName: "URL"))
    var peers: [String] = []

    @Option(name: .customLong("peer-token"), help: ArgumentHelp("The token of the peers' sync endpoints.", valueName: "T"))
    var peerToken: String?

    @Option(name: .customLong("sync-interval"), help: ArgumentHelp("Seconds between sync rounds with a peer.", valueName: "SECONDS"))
    var syncInterval: Double = 5

    @Option(help: ArgumentHelp("What to fetch from peers ahead of need: on-demand, thumbnails or originals.", valueName: "MODE"))
    var fetch = "on-demand"

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.storeDirectory = storeOptions.url
        configuration.token = token ?? ProcessInfo.processInfo.environment["ATTACH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.maxUploadBytes = maxUploadMiB << 20
        configuration.peers = try peers.map { try Peer(parsing: $0).url }
        configuration.peerToken = peerToken
        guard syncInterval > 0 else { throw ValidationError("--sync-interval must be positive") }
        configuration.syncInterval = .milliseconds(Int64(syncInterval * 1000))
        guard let mode = FetchMode(rawValue: fetch) else {
            throw ValidationError("--fetch takes on-demand, thumbnails or originals")
        }
        configuration.fetchMode = mode
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level \(logLevel)")
        }
        configuration.logger.logLevel = level
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.description)
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let storePath = configuration.storeDirectory.path(percentEncoded: false)
        configuration.onServerRunning = { port in
            Console.out("serving \(storePath) on http://\(shownHost):\(port)")
        }
        try await AttachmentServer.run(configuration)
    }
}
