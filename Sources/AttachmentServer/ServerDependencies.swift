import AttachmentStore
import AttachmentSync
import Hummingbird

/// What every route needs, built once per application.
struct ServerDependencies: Sendable {
    /// The store the server serves.
    let store: AttachmentStore
    /// How the server was configured.
    let configuration: ServerConfiguration
    /// The metrics registry.
    let metrics: ServerMetrics
    /// Reads blob files in chunks off the cooperative pool.
    let fileIO: FileIO
    /// The web UI's static files and the OpenAPI document, loaded at start.
    let assets: StaticAssets
    /// Finished answers for hash-addressed thumbnail URLs.
    let thumbnailResponses: ThumbnailResponseCache
    /// Fetches the bytes of attachments that arrived by sync, when peers are configured.
    let fetcher: BlobFetcher?
    /// Uploads being received now, and how many may be at once.
    let uploadSlots: UploadSlots
    /// Blob bytes served to peers.
    let syncCounters = SyncCounters()
    /// What continuous sync has seen of each peer (rounds, refused changes, failures).
    let syncLedger = PeerSyncLedger()
    /// Wrong tokens at `/login` by client address, and the waits they earn.
    let loginAttempts = LoginAttempts()

    /// The tokens the server accepts.
    var tokens: AccessTokens { AccessTokens(full: configuration.token, syncRead: configuration.syncToken, syncPush: configuration.pushToken) }
    /// The host names the server answers to.
    var allowedHosts: AllowedHosts {
        AllowedHosts(bindHost: configuration.host, publicURL: configuration.publicURL, extra: configuration.allowedHosts)
    }
    /// The one decision on hosts and credentials, for the router and the fast path alike.
    var accessPolicy: AccessPolicy { AccessPolicy(hosts: allowedHosts, tokens: tokens) }
    /// The proxies whose forwarded headers are believed.
    let trustedProxies: TrustedProxies
    /// The login sessions of browsers.
    let sessions: LoginSessions
    /// The HTTP client for peers (trusting `--peer-ca` when given).
    let peerHTTP: PeerHTTPClient
    /// Whether the server is draining (then `/health/ready` answers 503).
    let readiness: ServerReadiness
    /// The open connections, by client address (limits, shedding, who authenticated).
    let connections: ConnectionTable
}
