import AttachmentStore
import CatalogSQL
import AttachmentSync
import Foundation
import Logging

/// Everything `attach serve` can be told, with safe defaults.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.storeDirectory = URL(filePath: "attach-data")
/// try await AttachmentServer.run(configuration)
/// ```
public struct ServerConfiguration: Sendable {
    /// The address to bind. Default `127.0.0.1` (loopback only).
    public var host: String = "127.0.0.1"
    /// The TCP port to bind; `0` picks a free one. Default `8080`.
    public var port: Int = 8080
    /// The store folder, created when missing or empty. Default `./attach-data`.
    public var storeDirectory: URL = URL(filePath: "attach-data", directoryHint: .isDirectory)
    /// The catalog's database when it is not `catalog.sqlite` in ``storeDirectory``: PostgreSQL
    /// shared by several servers. Default `nil`.
    public var catalogDatabase: (any SQLDatabase)?
    /// Where the store's originals live when not in the store folder (an S3 bucket, shared by
    /// several servers on one backend). Default `nil`: files in ``storeDirectory``.
    public var objectStore: (any BlobObjectStore)?
    /// The token that grants everything (``AccessScope/full``). When set, every route but
    /// `/health` and the login page needs credentials: `Authorization: Bearer TOKEN`, or the
    /// session cookie a browser gets by logging in with it at `/login`. `nil` means the server
    /// is open, which ``validate()`` allows on loopback only.
    public var token: String?
    /// A token for peers that grants ``AccessScope/syncRead`` only (`/sync/*`, `/blobs/*`); it
    /// cannot browse, write or log in. Needs ``token``. Default none.
    public var syncToken: String?
    /// A token for devices that sync both ways, granting ``AccessScope/syncPush``: the peer
    /// protocol, and pushing changes and originals' bytes; it cannot browse, use the API or log
    /// in. Needs ``token``, and must differ from it and from ``syncToken``. Default none.
    public var pushToken: String?
    /// Host names (or addresses) the server answers to besides loopback, `localhost`, the bound
    /// address and ``publicURL``'s host; a request naming any other `Host` is refused with 421
    /// before routing (the defence against DNS rebinding). Default none.
    public var allowedHosts: [String] = []
    /// The address people use to reach the server when it is not the bound one (for example
    /// `https://photos.example.com` behind a reverse proxy): its host is allowed, its origin may
    /// write, and when it is `https` the session cookie is `Secure`. Default `nil`.
    public var publicURL: URL?
    /// The reverse proxies (addresses, or networks like `10.0.0.0/8`) whose `X-Forwarded-For`
    /// and `X-Forwarded-Proto` are believed; from anyone else those headers are ignored.
    /// Default none.
    public var trustedProxies: [String] = []
    /// The certificate chain and private key (PEM files) to serve HTTPS with; `nil` (the
    /// default) serves plain HTTP, for loopback or behind a TLS-terminating proxy.
    public var tls: TLSFiles?
    /// A PEM file of the certificates to trust for `https://` peers (a private CA); `nil` trusts
    /// the system's roots.
    public var peerCertificateAuthority: String?
    /// How long a login session lasts. Default 7 days.
    public var sessionLifetime: Duration = .seconds(7 * 24 * 3600)
    /// The largest upload accepted, in bytes; larger ones are answered with 413. Default 256 MiB.
    public var maxUploadBytes: Int64 = 256 << 20
    /// The largest ``maxUploadBytes`` a server may be given: 1 TiB. A tus `Upload-Length` past
    /// it is malformed (400) on any server; one past the server's own limit is too large (413).
    public static let uploadLimitCeiling: Int64 = 1 << 40
    /// How long a resumable upload (`/api/uploads`) that receives nothing is kept before `gc`
    /// may remove it: one day.
    public var uploadLifetime: Duration = AttachmentStore.defaultUploadLifetime
    /// How long a connection may send nothing while a request (head or body) is awaited before
    /// the server closes it. A stalled client then holds no connection, and an upload it
    /// stalled is aborted like a cut-off one. Answers being written are not cut. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a connection may take to deliver a complete request head once the server is
    /// ready for one (the connection accepted, or the previous answer written); then it is
    /// closed. A client trickling its head a byte at a time holds the connection no longer
    /// than this. It also bounds how long a kept-alive connection waits for its next request.
    /// Default 30 s.
    public var requestHeadTimeout: Duration = .seconds(30)
    /// The slowest an upload body may arrive, in bytes per second averaged over
    /// ``uploadRateWindow`` of waiting for the client; a slower upload is answered with 408
    /// `upload_too_slow`, stores nothing, and its connection is closed. `nil` for no minimum.
    /// Default 4 KiB/s: a 20 MB photo may take 80 minutes.
    public var minimumUploadRate: Int64? = 4 << 10
    /// The stretch of waiting for an upload's bytes over which ``minimumUploadRate`` is averaged,
    /// so a link that pauses now and then is not cut. Default 30 s.
    public var uploadRateWindow: Duration = .seconds(30)
    /// The most connections held open at once. At the limit a new connection takes the place of
    /// an idle one (one that never passed the credentials check first); when every connection
    /// is busy, it is closed as it arrives. Default 512.
    public var maxConnections = 512
    /// The most connections one client address (the connection's own peer) holds at once; one
    /// more is closed as it arrives. Connections from a ``trustedProxies`` address are not
    /// limited as one client. Default 64.
    public var maxConnectionsPerClient = 64
    /// The most uploads (and data replacements) received at once; one more is answered 503
    /// `too_many_uploads` with `Retry-After`. Default 16.
    public var maxConcurrentUploads = 16
    /// The most playable copies of videos made at once (ffmpeg transcodes); more wait their
    /// turn. Poster frames are made in the thumbnail pipeline's own slots. Default 1.
    public var maxTranscodes = 1
    /// How long a client may read nothing of an answer before its connection is closed (a
    /// slow reader holds no connection or file longer). Default 60 s.
    public var responseWriteTimeout: Duration = .seconds(60)
    /// The thumbnail edge lengths, in pixels, a client may ask for. Default 200, 400, 800, 2048.
    public var thumbnailSizes: [Int] = [200, 400, 800, 2048]
    /// Where the server logs, including one line per request. Default: label `attach-serve`, level info.
    public var logger = Logger(label: "attach-serve")
    /// Peers to pull records from continuously (and fetch bytes from when asked). Default none.
    public var peers: [URL] = []
    /// Each peer's own token, by its URL (as in ``peers``): sent to that peer only. A peer not
    /// named here gets no token (or ``peerToken`` when it is the only peer).
    public var peerTokens: [URL: String] = [:]
    /// The token of the one peer, when exactly one is configured (`--peer-token`). Refused
    /// with more than one peer: one peer must never receive a credential meant for another.
    public var peerToken: String?

    /// The configured peers, each with its own token.
    public var peerList: [Peer] {
        peers.map { Peer(url: $0, token: peerTokens[$0] ?? (peers.count == 1 ? peerToken : nil)) }
    }
    /// The shortest time between the starts of two sync rounds with a peer that brought
    /// nothing. Default 5 s.
    public var syncInterval: Duration = .seconds(5)
    /// How long a peer may hold a sync request until it has a change (a long poll, so changes
    /// arrive as they are made); zero polls every ``syncInterval``. Default 25 s.
    public var syncWait: Duration = .seconds(25)
    /// The most bytes per second `/blobs/...` sends to one peer; `nil` for no limit (default).
    public var peerBandwidth: Int64?
    /// How far ahead of this machine's clock a peer's clock stamp may be; a change stamped
    /// later is refused and skipped. Default 5 minutes.
    public var maxClockSkew: Duration = .seconds(300)
    /// What to fetch from peers ahead of need. Default on demand (nothing).
    public var fetchMode: FetchMode = .onDemand
    /// What to push to the peers as this store's feed moves. Default records (a peer that
    /// refuses pushes is only pulled from).
    public var pushMode: PushMode = .records
    /// A change to the storage budget recorded in the store's settings, applied at start
    /// (`nil`, the default, keeps the store's own).
    public var storageBudgetUpdate: (@Sendable (StorageBudget) -> StorageBudget)?
    /// How often the storage budget is enforced (and stale files of `tmp/` expired). Default 30 s.
    public var budgetInterval: Duration = .seconds(30)
    /// How much of `tmp/` partial peer downloads may take (per peer and in all) and how long a
    /// dead file there is kept. Default `PartialDownloadLimits()`: 1 GiB and 32 files in all,
    /// 256 MiB and 8 files per peer, 10 minutes.
    public var partialDownloads = PartialDownloadLimits()
    /// How long a note or attachment stays in the trash before it is purged for good (on
    /// every peer, by the tombstone the purge makes). Default 30 days.
    public var trashRetention: Duration = .seconds(30 * 86_400)
    /// How often what outlived ``trashRetention`` is purged. Default one hour.
    public var trashPurgeInterval: Duration = .seconds(3600)
    /// Re-hash stored blobs in the background at most this many bytes per second; `nil` (the
    /// default) for no background scrub.
    public var scrubRate: Int64?
    /// How long a stopping server keeps serving after `/health/ready` turned 503, so a load
    /// balancer polling it moves new requests elsewhere first. Default 0: stop at once.
    public var drainDelay: Duration = .zero
    /// Called once the server listens, with the port it got (useful with ``port`` `0`).
    public var onServerRunning: (@Sendable (Int) async -> Void)?

    /// The default configuration.
    public init() {}

    /// Checks the configuration before anything binds.
    /// - Throws: ``ServerConfiguration/Problem`` when a non-loopback address has no token or
    ///   one shorter than ``minimumPublicTokenBytes``, or a number is out of range.
    public func validate() throws(Problem) {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        guard (1...Self.uploadLimitCeiling).contains(maxUploadBytes) else { throw .invalidUploadLimit(maxUploadBytes) }
        if let token, token.isEmpty { throw .emptyToken }
        if let syncToken {
            guard !syncToken.isEmpty else { throw .emptyToken }
            guard token != nil else { throw .syncTokenWithoutToken }
            guard syncToken != token else { throw .syncTokenEqualsToken }
        }
        if let pushToken {
            guard !pushToken.isEmpty else { throw .emptyToken }
            guard token != nil else { throw .pushTokenWithoutToken }
            guard pushToken != token, pushToken != syncToken else { throw .pushTokenReused }
        }
        if let publicURL {
            guard ["http", "https"].contains(publicURL.scheme?.lowercased() ?? ""), publicURL.host(percentEncoded: false)?.isEmpty == false
            else { throw .invalidPublicURL(publicURL.absoluteString) }
        }
        for name in allowedHosts where !AllowedHosts.isHostName(name) {
            throw .invalidAllowedHost(name)
        }
        _ = try TrustedProxies(parsing: trustedProxies)
        guard sessionLifetime > .zero else { throw .invalidDuration(name: "session lifetime") }
        guard maxClockSkew > .zero else { throw .invalidDuration(name: "maximum clock skew") }
        if let peerBandwidth, peerBandwidth <= 0 { throw .invalidPeerBandwidth(peerBandwidth) }
        if peerToken != nil && peers.count > 1 { throw .peerTokenForManyPeers(peers.count) }
        for (url, token) in peerTokens {
            guard peers.contains(url) else { throw .tokenForUnknownPeer(url.absoluteString) }
            guard !token.isEmpty else { throw .emptyToken }
        }
        if let peerToken, peerToken.isEmpty { throw .emptyToken }
        if let scrubRate, scrubRate <= 0 { throw .invalidLimit(name: "scrub rate", Int(clamping: scrubRate)) }
        guard drainDelay >= .zero, drainDelay <= .seconds(300) else { throw .invalidDuration(name: "drain delay") }
        guard budgetInterval > .zero else { throw .invalidDuration(name: "budget interval") }
        guard maxConnections > 0 else { throw .invalidLimit(name: "connection limit", maxConnections) }
        guard maxConnectionsPerClient > 0 else { throw .invalidLimit(name: "per-client connection limit", maxConnectionsPerClient) }
        guard maxConcurrentUploads > 0 else { throw .invalidLimit(name: "concurrent upload limit", maxConcurrentUploads) }
        guard (1...64).contains(maxTranscodes) else { throw .invalidLimit(name: "transcode limit", maxTranscodes) }
        for (name, duration) in [("idle timeout", idleTimeout), ("request head timeout", requestHeadTimeout),
                                 ("upload rate window", uploadRateWindow), ("response write timeout", responseWriteTimeout)]
            where duration <= .zero {
            throw .invalidDuration(name: name)
        }
        if let minimumUploadRate, minimumUploadRate <= 0 { throw .invalidUploadRate(minimumUploadRate) }
        if !Self.isLoopback(host) {
            guard let token else { throw .tokenRequired(host: host) }
            for (option, secret) in [("--token", token), ("--sync-token", syncToken), ("--push-token", pushToken)] {
                if let secret, secret.utf8.count < Self.minimumPublicTokenBytes {
                    throw .tokenTooShort(host: host, option: option, bytes: secret.utf8.count)
                }
            }
        }
        if let tls { _ = try tls.serverConfiguration() }
    }

    /// The fewest bytes a token (``token``, ``syncToken``) may have when the server listens
    /// beyond loopback: 16, so that guessing it at the rate `/login` allows takes forever.
    public static let minimumPublicTokenBytes = 16

    /// Whether `host` only accepts connections from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        AllowedHosts.isLoopback(AllowedHosts.normalized(host))
    }

    /// The files of a TLS certificate and its key.
    public struct TLSFiles: Sendable, Equatable {
        /// The certificate chain, PEM, the server's own certificate first.
        public var certificateChain: String
        /// The private key, PEM.
        public var privateKey: String

        /// Files at these paths.
        public init(certificateChain: String, privateKey: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// A configuration `attach serve` refuses to start with, with what to do about it.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// Binding beyond loopback without a token would let anyone on the network write.
        case tokenRequired(host: String)
        /// Binding beyond loopback with a token (`option`) of only `bytes` bytes, which a
        /// network could guess.
        case tokenTooShort(host: String, option: String, bytes: Int)
        /// `--token ""` or `--sync-token ""`.
        case emptyToken
        /// A sync token on a server without a full token, which would be open anyway.
        case syncTokenWithoutToken
        /// The sync token is the full token, so it would grant everything.
        case syncTokenEqualsToken
        /// `--push-token` without `--token`.
        case pushTokenWithoutToken
        /// `--push-token` equal to `--token` or `--sync-token`.
        case pushTokenReused
        /// The public URL is not an `http` or `https` URL with a host.
        case invalidPublicURL(String)
        /// An allowed host is not a host name or address.
        case invalidAllowedHost(String)
        /// The port is not in 0...65535.
        case invalidPort(Int)
        /// The upload limit is not positive.
        case invalidUploadLimit(Int64)
        /// The peer bandwidth cap is not positive.
        case invalidPeerBandwidth(Int64)
        /// One ``ServerConfiguration/peerToken`` with more than one peer: it would reach peers it is not meant for.
        case peerTokenForManyPeers(Int)
        /// A token in ``ServerConfiguration/peerTokens`` for a URL that is not one of the peers.
        case tokenForUnknownPeer(String)
        /// A timeout or window is zero or negative.
        case invalidDuration(name: String)
        /// A TLS certificate or key file cannot be read or does not parse.
        case unreadableTLSFile(path: String, reason: String)
        /// A trusted proxy is not an IP address or network.
        case invalidTrustedProxy(String)
        /// A count limit is zero or negative.
        case invalidLimit(name: String, Int)
        /// The minimum upload rate is not positive (leave it out, `nil`, for none).
        case invalidUploadRate(Int64)

        /// What is wrong and what to do instead, in one line.
        public var description: String {
            switch self {
            case .tokenRequired(let host):
                return "refusing to listen on \(host) without a token: anyone who can reach it could change the store; "
                    + "pass --token SECRET (clients send `Authorization: Bearer SECRET`, browsers log in at /login) or bind 127.0.0.1"
            case .tokenTooShort(let host, let option, let bytes):
                return "refusing to listen on \(host) with a \(bytes)-byte \(option): anyone who can reach it could guess it; "
                    + "give at least \(ServerConfiguration.minimumPublicTokenBytes) random bytes (for example `openssl rand -hex 16`) or bind 127.0.0.1"
            case .emptyToken:
                return "the token is empty; pass a non-empty --token (or --sync-token) or leave it out"
            case .syncTokenWithoutToken:
                return "--sync-token needs --token: without a full token the server is open to everyone on loopback anyway"
            case .syncTokenEqualsToken:
                return "--sync-token must differ from --token, or it would grant everything"
            case .pushTokenWithoutToken:
                return "--push-token needs --token: without a full token the server is open to everyone on loopback anyway"
            case .pushTokenReused:
                return "--push-token must differ from --token and --sync-token, or one token would grant two scopes"
            case .invalidPublicURL(let url):
                return "public URL \(url) must be an http:// or https:// URL with a host, for example https://photos.example.com"
            case .invalidAllowedHost(let name):
                return "allowed host \(name) is not a host name or address; give a name like photos.example.com or an address like 192.168.1.10, without a port (every port of an allowed name is allowed)"
            case .invalidPort(let port):
                return "port \(port) is out of range; use 0...65535"
            case .invalidUploadLimit(let limit):
                return "upload limit \(limit) must be a positive number of bytes, at most 1 TiB (1048576 MiB)"
            case .invalidPeerBandwidth(let rate):
                return "peer bandwidth \(rate) must be a positive number of bytes per second"
            case .peerTokenForManyPeers(let count):
                return "--peer-token is for one peer, and \(count) are named: every peer would receive it; give each peer its own "
                    + "token with --peer-token-file URL=FILE (repeatable) or --peers-file FILE"
            case .tokenForUnknownPeer(let url):
                return "a peer token is given for \(url), which is not one of the peers; name it with --peer \(url) or fix the URL"
            case .unreadableTLSFile(let path, let reason):
                return "cannot use \(path) for TLS: \(reason); give a PEM certificate chain with --tls-cert and its PEM key with --tls-key"
            case .invalidTrustedProxy(let entry):
                return "trusted proxy \(entry) is not an IP address or network; give one like 127.0.0.1, ::1 or 10.0.0.0/8"
            case .invalidLimit(let name, let value):
                return "the \(name) \(value) must be a positive number"
            case .invalidDuration(let name):
                return "the \(name) must be a positive number of seconds"
            case .invalidUploadRate(let rate):
                return "minimum upload rate \(rate) must be a positive number of bytes per second (or none at all)"
            }
        }
    }
}
