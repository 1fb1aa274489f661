import AttachmentStore
import AttachmentSync
import Hummingbird
import Logging
import NIOCore
import HummingbirdCore
import HummingbirdTLS
import ServiceLifecycle

/// Builds the whole server: store, routes, middleware, metrics. `attach serve` and the tests
/// call this same function.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// let app = try await buildApplication(configuration)
/// try await app.runService()
/// ```
/// - Throws: ``ServerConfiguration/Problem`` for a configuration it refuses,
///   `AttachmentStore.Error` when the store cannot be opened or created.
public func buildApplication(_ configuration: ServerConfiguration) async throws -> some ApplicationProtocol {
    try await buildApplication(configuration, readiness: ServerReadiness())
}

/// ``buildApplication(_:)`` whose `/health/ready` follows `readiness` (503 once it drains).
func buildApplication(_ configuration: ServerConfiguration, readiness: ServerReadiness) async throws -> some ApplicationProtocol {
    try configuration.validate()
    let dependencies = try await ServerDependencies.make(configuration, readiness: readiness)
    let router = buildRouter(dependencies)
    let onRunning = configuration.onServerRunning
    let (headTimeout, writeTimeout) = (TimeAmount(configuration.requestHeadTimeout), TimeAmount(configuration.responseWriteTimeout))
    let connections = dependencies.connections
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [
            ConnectionLimitHandler(table: connections), SlowClientHandler(headTimeout: headTimeout, writeTimeout: writeTimeout),
        ],
        idleTimeout: TimeAmount(configuration.idleTimeout))
    // Cached thumbnails are answered on the event loop, before the router, and file bodies
    // sent with sendfile where the connection is not encrypted (AttachChannel).
    let answers = CachedThumbnailAnswers(dependencies)
    let sendsFileBodies = configuration.tls == nil
    let http = HTTPServerBuilder { responder in
        AttachChannel(base: HTTP1Channel(responder: responder, configuration: http1), answers: answers, sendsFileBodies: sendsFileBodies,
                      metrics: dependencies.metrics, connections: connections)
    }
    return Application(
        router: router,
        server: try configuration.tls.map { try .tls(http, tlsConfiguration: try $0.serverConfiguration()) } ?? http,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: CachedThumbnailAnswers.serverName
        ),
        services: [dependencies.peerHTTP.service, StoreDrainService(store: dependencies.store), dependencies.sessions.storage]
            + dependencies.syncServices() + dependencies.storageServices(),
        onServerRunning: { channel in
            await onRunning?(channel.localAddress?.port ?? configuration.port)
        },
        logger: configuration.logger
    )
}

extension TimeAmount {
    /// `duration` in NIO's unit.
    init(_ duration: Duration) {
        let components = duration.components
        self = .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}

extension ServerDependencies {
    /// Opens (or creates) the store and loads the static files.
    static func make(_ configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
                     readiness: ServerReadiness = ServerReadiness()) async throws -> ServerDependencies {
        var storeConfiguration = AttachmentStore.Configuration()
        storeConfiguration.logger = configuration.logger
        if let objectStore = configuration.objectStore { storeConfiguration.originals = .objectStore(objectStore) }
        storeConfiguration.catalogDatabase = configuration.catalogDatabase
        storeConfiguration.peerLimits.maxBlobBytes = configuration.maxUploadBytes
        storeConfiguration.peerLimits.maxClockSkew = configuration.maxClockSkew
        storeConfiguration.partialDownloads = configuration.partialDownloads
        storeConfiguration.trashRetention = configuration.trashRetention
        storeConfiguration.videos.maximumConcurrentTranscodes = configuration.maxTranscodes
        let peers = configuration.peerList
        let peerHTTP = try PeerHTTPClient.trusting(certificateAuthorityFile: configuration.peerCertificateAuthority)
        let fetcher = peers.isEmpty ? nil : BlobFetcher(peers: peers, http: peerHTTP.http, logger: configuration.logger)
        storeConfiguration.remoteBlobSource = fetcher
        let store = try await AttachmentStore.create(at: configuration.storeDirectory, configuration: storeConfiguration)
        if let update = configuration.storageBudgetUpdate { try await store.setStorageBudget(update(try await store.storageBudget())) }
        let trustedProxies = try TrustedProxies(parsing: configuration.trustedProxies)
        return ServerDependencies(
            store: store, configuration: configuration, metrics: metrics, fileIO: FileIO(), assets: StaticAssets.load(),
            thumbnailResponses: ThumbnailResponseCache(), fetcher: fetcher, uploadSlots: UploadSlots(limit: configuration.maxConcurrentUploads),
            trustedProxies: trustedProxies,
            sessions: LoginSessions(store: store, lifetime: configuration.sessionLifetime, logger: configuration.logger,
                                    secureCookie: configuration.tls != nil || configuration.publicURL?.scheme?.lowercased() == "https"),
            peerHTTP: peerHTTP, readiness: readiness,
            connections: ConnectionTable(limit: configuration.maxConnections, perClientLimit: configuration.maxConnectionsPerClient,
                                         exempt: trustedProxies, metrics: metrics, logger: configuration.logger)
        )
    }

    /// The continuous sync with the configured peers, when there are any.
    func syncServices() -> [any Service] {
        guard let fetcher, !configuration.peers.isEmpty else { return [] }
        var sync = PeerSyncService.Configuration(peers: configuration.peerList)
        sync.interval = configuration.syncInterval
        sync.wait = configuration.syncWait
        sync.fetchMode = configuration.fetchMode
        sync.pushMode = configuration.pushMode
        return [PeerSyncService(store: store, fetcher: fetcher, configuration: sync, ledger: syncLedger, http: peerHTTP.http,
                                logger: configuration.logger)]
    }
}

extension ServerDependencies {
    /// The storage budget's enforcement, always (a store without a budget only finishes
    /// interrupted evictions), the trash's purge after its retention, and the background scrub
    /// when a rate is configured.
    func storageServices() -> [any Service] {
        var services: [any Service] = [
            StorageBudgetService(store: store, interval: configuration.budgetInterval, metrics: metrics, logger: configuration.logger),
            TrashPurgeService(store: store, interval: configuration.trashPurgeInterval, metrics: metrics, logger: configuration.logger),
        ]
        if let rate = configuration.scrubRate {
            services.append(ScrubService(store: store, bytesPerSecond: rate, metrics: metrics, logger: configuration.logger))
        }
        return services
    }
}

/// The router with every route and middleware. Separate from ``buildApplication(_:)`` so tests
/// can list its routes against the OpenAPI document.
///
/// Order matters: the forwarded headers are read (from a trusted proxy) or dropped first; the host check refuses a foreign `Host` before anything else looks at the
/// request; the authenticators only record who a request is; each group's ``RequireAccess``
/// decides, on the matched route, whether that is enough; a path the server has asked with a
/// method it does not take there is a 405 with `Allow`.
func buildRouter(_ dependencies: ServerDependencies) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    let tokens = dependencies.tokens
    router.add(middleware: ForwardedHeadersMiddleware(trusted: dependencies.trustedProxies, tls: dependencies.configuration.tls != nil))
    router.add(middleware: RequestLogMiddleware(metrics: dependencies.metrics))
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: HostCheckMiddleware(policy: dependencies.accessPolicy))
    router.add(middleware: SameOriginWritesMiddleware(publicURL: dependencies.configuration.publicURL))
    router.add(middleware: dependencies.sessions.middleware)
    router.add(middleware: BearerAuthenticator(policy: dependencies.accessPolicy))
    router.add(middleware: dependencies.sessions.authenticator)
    router.add(middleware: AuthenticatedConnectionMiddleware(connections: dependencies.connections, tokens: tokens))
    let routeTable = RouteTable()
    router.add(middleware: MethodNotAllowedMiddleware(table: routeTable))

    // Open to anyone: the health check and the login page with its own files.
    let open = router.group()
    SystemRoutes(dependencies: dependencies).registerPublic(on: open)
    LoginRoutes(dependencies: dependencies).register(on: open)

    // The JSON API, metrics and the API document: the full scope, 401 without it.
    let api = router.group("api").add(middleware: RequireAccess(scope: .full, policy: dependencies.accessPolicy, refusal: .unauthorized))
    NoteRoutes(dependencies: dependencies).register(on: api)
    NoteHistoryRoutes(dependencies: dependencies).register(on: api)
    TrashRoutes(dependencies: dependencies).register(on: api)
    AttachmentRoutes(dependencies: dependencies).register(on: api)
    ResumableUploadRoutes(dependencies: dependencies).register(on: api)
    OriginalRoute(dependencies: dependencies).register(on: api)
    VideoRoute(dependencies: dependencies).register(on: api)
    OriginalsArchiveRoute(dependencies: dependencies).register(on: api)
    ThumbnailRoute(dependencies: dependencies).register(on: api)
    HeldOriginalRoute(dependencies: dependencies).register(on: api)
    let system = router.group().add(middleware: RequireAccess(scope: .full, policy: dependencies.accessPolicy, refusal: .unauthorized))
    SystemRoutes(dependencies: dependencies).registerProtected(on: system)

    // The peer protocol: the sync scope (or full).
    let sync = router.group().add(middleware: RequireAccess(scope: .syncRead, policy: dependencies.accessPolicy, refusal: .unauthorized))
    SyncRoutes(dependencies: dependencies).register(on: sync)
    // Pushes from devices: the push scope (or full).
    let push = router.group().add(middleware: RequireAccess(scope: .syncPush, policy: dependencies.accessPolicy, refusal: .unauthorized))
    SyncPushRoutes(dependencies: dependencies).register(on: push)

    // The web UI's pages: the full scope, or off to the login page.
    let pages = router.group().add(middleware: RequireAccess(scope: .full, policy: dependencies.accessPolicy, refusal: .loginPage))
    WebUIRoutes(dependencies: dependencies).register(on: pages)
    routeTable.record(router.routes.map { (path: $0.path.description, method: $0.method.rawValue) })
    return router
}
