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
            SIGTERM: /health/ready turns 503 at once, the server keeps serving for --drain-delay,
            then requests in flight, uploads included, finish first. Under systemd (Type=notify)
            it reports READY=1 once it listens and STOPPING=1 on the signal. Every option can also
            be given in the environment as ATTACH_<OPTION> (ATTACH_MAX_UPLOAD=512; a list for
            --peer, --peer-token-file, --allowed-host and --trusted-proxy is comma-separated); the command line wins.
            Each peer gets its own token (--peer-token-file URL=FILE or --peers-file FILE) and
            never another's; --peer-token is refused with more than one peer. With --token every
            route but /health, /health/live, /health/ready and the login page needs credentials: `Authorization: Bearer
            TOKEN`, or the session cookie a browser gets by logging in at /login. Listening
            beyond loopback needs --token. Requests naming a Host other than loopback,
            localhost, the bound address, --public-url or an --allowed-host are refused (421).
            """
    )

    /// Every option, by its long name; each is also read from `ATTACH_<NAME>` (see
    /// ``EnvironmentArguments``). A test checks the list against the command's options.
    static let environmentOptions = [
        "store", "blobs", "catalog", "host", "port", "token", "token-file", "sync-token", "sync-token-file", "push-token", "push-token-file", "allowed-host",
        "public-url", "trusted-proxy", "tls-cert", "tls-key", "peer-ca", "session-hours", "max-upload", "upload-expiry", "idle-timeout", "request-head-timeout",
        "min-upload-rate", "upload-rate-window", "max-connections", "max-connections-per-client", "max-concurrent-uploads", "max-transcodes",
        "response-write-timeout",
        "log-level", "peer", "peer-token", "peer-token-file", "peers-file", "sync-interval", "sync-wait", "peer-bandwidth", "max-clock-skew", "fetch", "push",
        "max-local-bytes", "max-thumbnail-cache-bytes", "budget-interval", "scrub-rate", "trash-days",
        "max-partial-bytes", "max-partial-bytes-per-peer", "partial-lifetime", "drain-delay",
    ]
    /// The options that may be given more than once (a comma-separated list in the environment).
    static let repeatableOptions: Set<String> = ["peer", "peer-token-file", "allowed-host", "trusted-proxy"]

    /// Options that give one setting two ways (a secret, or the file holding it): one of them on
    /// the command line keeps the other out of the environment too, so the command line wins.
    static let alternativeOptions: [String: String] = [
        "token": "token-file", "token-file": "token", "sync-token": "sync-token-file", "sync-token-file": "sync-token",
        "push-token": "push-token-file", "push-token-file": "push-token",
        "peer-token": "peer-token-file", "peer-token-file": "peer-token",
    ]

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: ArgumentHelp("The token every request needs (`Authorization: Bearer TOKEN`, or log in at /login).",
                               discussion: "Required when --host is not loopback, and then at least 16 bytes. Prefer --token-file: "
                                   + "`ps` shows arguments.", valueName: "T"))
    var token: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("Read --token from this file (one line).", valueName: "FILE"))
    var tokenFile: String?

    @Option(name: .customLong("sync-token"),
            help: ArgumentHelp("A second token that allows only the peer protocol (/sync/*, /blobs/*), for peers.",
                               discussion: "Needs --token.", valueName: "T"))
    var syncToken: String?

    @Option(name: .customLong("sync-token-file"), help: ArgumentHelp("Read --sync-token from this file.", valueName: "FILE"))
    var syncTokenFile: String?

    @Option(name: .customLong("push-token"),
            help: ArgumentHelp("A token for devices that sync both ways: the peer protocol, and pushing changes and originals.",
                               discussion: "Needs --token; it cannot browse, use the API or log in.", valueName: "T"))
    var pushToken: String?

    @Option(name: .customLong("push-token-file"), help: ArgumentHelp("Read --push-token from this file.", valueName: "FILE"))
    var pushTokenFile: String?

    @Option(name: .customLong("allowed-host"),
            help: ArgumentHelp("A host name this server answers to besides loopback and localhost (repeatable).", valueName: "NAME"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("public-url"),
            help: ArgumentHelp("The address people reach the server at (behind a proxy): its host is allowed, "
                               + "its origin may write, https makes the session cookie Secure.", valueName: "URL"))
    var publicURL: String?

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("A reverse proxy's address or network (10.0.0.0/8) whose X-Forwarded-For and X-Forwarded-Proto "
                               + "are believed (repeatable); from anyone else they are ignored.", valueName: "ADDRESS"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (needs --tls-key).", valueName: "FILE"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE"))
    var tlsKey: String?

    @OptionGroup var peerCertificates: PeerCertificateOption

    @Option(name: .customLong("session-hours"), help: ArgumentHelp("How long a browser login lasts.", valueName: "HOURS"))
    var sessionHours: Double = 168

    @Option(name: .customLong("max-upload"), help: ArgumentHelp("The largest upload in MiB (answered with 413 beyond).", valueName: "MIB"))
    var maxUploadMiB: Int64 = 256

    @Option(name: .customLong("upload-expiry"),
            help: ArgumentHelp("Keep a resumable upload (/api/uploads) this long after it last received bytes; `attach gc` removes it after.",
                               valueName: "HOURS"))
    var uploadExpiryHours: Double = 24

    @Option(name: .customLong("idle-timeout"),
            help: ArgumentHelp("Close a connection silent this long while a request is awaited.", valueName: "SECONDS"))
    var idleTimeout: Double = 60

    @Option(name: .customLong("request-head-timeout"),
            help: ArgumentHelp("Close a connection whose request head takes longer than this to arrive "
                               + "(also how long a kept-alive connection waits for its next request).", valueName: "SECONDS"))
    var requestHeadTimeout: Double = 30

    @Option(name: .customLong("min-upload-rate"),
            help: ArgumentHelp("Answer 408 and close when an upload arrives slower than this, averaged over "
                               + "--upload-rate-window of waiting; 0 for no minimum.", valueName: "KIBPS"))
    var minimumUploadRate: Double = 4

    @Option(name: .customLong("upload-rate-window"),
            help: ArgumentHelp("The stretch of waiting for upload bytes --min-upload-rate is averaged over.", valueName: "SECONDS"))
    var uploadRateWindow: Double = 30

    @Option(name: .customLong("max-connections"),
            help: ArgumentHelp("Connections held open at most; at the limit a new one takes an idle one's place "
                                   + "(one that never authenticated first), and is closed when all are busy.", valueName: "N"))
    var maxConnections = 512

    @Option(name: .customLong("max-connections-per-client"),
            help: ArgumentHelp("Connections one client address holds at most; more are closed as they arrive.",
                               discussion: "A --trusted-proxy's own address is not limited as one client.", valueName: "N"))
    var maxConnectionsPerClient = 64

    @Option(name: .customLong("max-concurrent-uploads"),
            help: ArgumentHelp("Uploads received at once at most; one more is answered 503 with Retry-After.", valueName: "N"))
    var maxConcurrentUploads = 16

    @Option(name: .customLong("max-transcodes"),
            help: ArgumentHelp("Playable copies of videos made at once (ffmpeg); more wait their turn (1 to 64).", valueName: "N"))
    var maxTranscodes = 1

    @Option(name: .customLong("response-write-timeout"),
            help: ArgumentHelp("Close a connection whose client reads nothing of an answer for this long.", valueName: "SECONDS"))
    var responseWriteTimeout: Double = 60

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer to sync with continuously (repeatable).", valueName: "URL"))
    var peers: [String] = []

    @Option(name: .customLong("peer-token"),
            help: ArgumentHelp("The token of the one --peer's sync endpoints (refused with more than one peer).", valueName: "T"))
    var peerToken: String?

    @Option(name: .customLong("peer-token-file"),
            help: ArgumentHelp("Send this peer the token in FILE, and no other peer (repeatable); a plain FILE is --peer-token's file.",
                               valueName: "URL=FILE"))
    var peerTokenFiles: [String] = []

    @Option(name: .customLong("peers-file"),
            help: ArgumentHelp("Peers to sync with, one a line: `URL` or `URL TOKEN-FILE` (each token goes to its own peer only).",
                               valueName: "FILE"))
    var peersFile: String?

    @Option(name: .customLong("sync-interval"),
            help: ArgumentHelp("Seconds between sync rounds that bring nothing (a peer that does not hold requests is asked this often).",
                               valueName: "SECONDS"))
    var syncInterval: Double = 5

    @Option(name: .customLong("sync-wait"),
            help: ArgumentHelp("Seconds a peer may hold a sync request until it has a change (0...55; 0 polls every --sync-interval).",
                               valueName: "SECONDS"))
    var syncWait: Int = 25

    @Option(name: .customLong("peer-bandwidth"), help: ArgumentHelp("Serve blob bytes to peers at most this fast, in MiB/s.", valueName: "MIBPS"))
    var peerBandwidth: Double?

    @Option(name: .customLong("max-clock-skew"),
            help: ArgumentHelp("Refuse a peer's change stamped further ahead of this machine's clock than this.", valueName: "SECONDS"))
    var maxClockSkew: Double = 300

    @Option(help: ArgumentHelp("What to fetch from peers ahead of need: on-demand, thumbnails or originals.", valueName: "MODE"))
    var fetch = "on-demand"

    @Option(help: ArgumentHelp("What to push to the peers as changes are made: off, records, or originals (records and the bytes "
                               + "of originals the peer lacks, for a server its peers cannot reach).", valueName: "MODE"))
    var push = "records"

    @OptionGroup var budgetOptions: StorageBudgetOptions
    @OptionGroup var trashOptions: TrashOptions
    @OptionGroup var partialDownloadOptions: PartialDownloadOptions

    @Option(name: .customLong("budget-interval"), help: ArgumentHelp("Seconds between enforcements of the storage budget.", valueName: "SECONDS"))
    var budgetInterval: Double = 30

    @Option(name: .customLong("scrub-rate"),
            help: ArgumentHelp("Re-hash stored originals in the background at most this fast per second (50M); a damaged one "
                               + "is quarantined and repaired from a peer. Default: no background scrub.", valueName: "SIZE"))
    var scrubRate: ByteSize?

    @Option(name: .customLong("drain-delay"),
            help: ArgumentHelp("Seconds a stopping server keeps serving after /health/ready turned 503, so a load balancer "
                               + "polling it moves new requests elsewhere first (0 to 300).", valueName: "SECONDS"))
    var drainDelay: Double = 0

    func run() async throws {
        try StoreOwner.refuseRootServing(storeOptions.url)
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.storeDirectory = storeOptions.url
        configuration.objectStore = try storeOptions.blobLocation().objectStore()
        configuration.catalogDatabase = try await storeOptions.catalogDatabase(logger: configuration.logger)
        configuration.token = try SecretFile.either(token, option: "--token", file: tokenFile, fileOption: "--token-file")
        configuration.syncToken = try SecretFile.either(syncToken, option: "--sync-token", file: syncTokenFile, fileOption: "--sync-token-file")
        configuration.pushToken = try SecretFile.either(pushToken, option: "--push-token", file: pushTokenFile, fileOption: "--push-token-file")
        configuration.allowedHosts = allowedHosts
        configuration.trustedProxies = trustedProxies
        if let publicURL {
            guard let url = URL(string: publicURL) else { throw ValidationError("--public-url \(publicURL) is not a URL") }
            configuration.publicURL = url
        }
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?): configuration.tls = .init(certificateChain: certificate, privateKey: key)
        case (nil, nil): break
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
        configuration.peerCertificateAuthority = peerCertificates.file
        guard sessionHours > 0 else { throw ValidationError("--session-hours must be positive") }
        configuration.sessionLifetime = .seconds(Int64(sessionHours * 3600))
        configuration.maxUploadBytes = maxUploadMiB << 20
        guard uploadExpiryHours > 0 else { throw ValidationError("--upload-expiry must be a positive number of hours") }
        configuration.uploadLifetime = .seconds(Int64(uploadExpiryHours * 3600))
        let resolvedPeers = try PeerCredentials(urls: peers, tokenFiles: peerTokenFiles, peersFile: peersFile,
                                                sharedToken: peerToken.map { ($0, "--peer-token") }).peers()
        configuration.peers = resolvedPeers.map(\.url)
        configuration.peerTokens = Dictionary(uniqueKeysWithValues: resolvedPeers.compactMap { peer in peer.token.map { (peer.url, $0) } })
        if let peerBandwidth {
            guard peerBandwidth > 0 else { throw ValidationError("--peer-bandwidth must be positive") }
            configuration.peerBandwidth = Int64(peerBandwidth * 1_048_576)
        }
        for (flag, seconds) in [("--idle-timeout", idleTimeout), ("--request-head-timeout", requestHeadTimeout),
                                ("--upload-rate-window", uploadRateWindow), ("--response-write-timeout", responseWriteTimeout)]
            where !(seconds > 0) {
            throw ValidationError("\(flag) must be a positive number of seconds")
        }
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerClient = maxConnectionsPerClient
        configuration.maxConcurrentUploads = maxConcurrentUploads
        configuration.maxTranscodes = maxTranscodes
        configuration.responseWriteTimeout = .milliseconds(Int64(responseWriteTimeout * 1000))
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.requestHeadTimeout = .milliseconds(Int64(requestHeadTimeout * 1000))
        configuration.uploadRateWindow = .milliseconds(Int64(uploadRateWindow * 1000))
        guard minimumUploadRate >= 0 else { throw ValidationError("--min-upload-rate must be 0 (none) or positive") }
        configuration.minimumUploadRate = minimumUploadRate == 0 ? nil : max(1, Int64(minimumUploadRate * 1024))
        guard syncInterval > 0 else { throw ValidationError("--sync-interval must be positive") }
        guard maxClockSkew > 0 else { throw ValidationError("--max-clock-skew must be a positive number of seconds") }
        configuration.maxClockSkew = .milliseconds(Int64(maxClockSkew * 1000))
        configuration.syncInterval = .milliseconds(Int64(syncInterval * 1000))
        guard (0...55).contains(syncWait) else { throw ValidationError("--sync-wait takes a whole number of seconds from 0 to 55") }
        configuration.syncWait = .seconds(syncWait)
        guard let mode = FetchMode(rawValue: fetch) else {
            throw ValidationError("--fetch takes on-demand, thumbnails or originals")
        }
        configuration.fetchMode = mode
        guard let pushMode = PushMode(rawValue: push) else { throw ValidationError("--push takes off, records or originals") }
        configuration.pushMode = pushMode
        guard budgetInterval > 0 else { throw ValidationError("--budget-interval must be a positive number of seconds") }
        configuration.budgetInterval = .milliseconds(Int64(budgetInterval * 1000))
        guard (0...300).contains(drainDelay) else { throw ValidationError("--drain-delay takes a number of seconds from 0 to 300") }
        configuration.drainDelay = .milliseconds(Int64(drainDelay * 1000))
        configuration.partialDownloads = partialDownloadOptions.limits
        configuration.trashRetention = trashOptions.retention
        if budgetOptions.isGiven { configuration.storageBudgetUpdate = { [budgetOptions] in budgetOptions.applied(to: $0) } }
        if let scrubRate {
            guard let rate = scrubRate.bytes, rate > 0 else { throw ValidationError("--scrub-rate must be a positive size per second, like 50M") }
            configuration.scrubRate = rate
        }
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
        let scheme = configuration.tls == nil ? "http" : "https"
        configuration.onServerRunning = { port in
            Console.out("serving \(storePath) on \(scheme)://\(shownHost):\(port)")
        }
        try await AttachmentServer.run(configuration)
    }
}
