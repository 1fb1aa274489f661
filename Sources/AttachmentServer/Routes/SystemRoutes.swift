import Hummingbird

/// `/health`, `/health/live`, `/health/ready`, `/metrics` (Prometheus text), `/openapi.yaml` and the web UI's `/static/` files.
struct SystemRoutes {
    let dependencies: ServerDependencies

    /// What anyone may read: the health checks and the login page's own static files.
    func registerPublic(on router: some RouterMethods<AppRequestContext>) {
        router.get("health", use: ready)
        router.get("health/live", use: live)
        router.get("health/ready", use: ready)
        for name in LoginPage.assetNames.sorted() {
            router.get(RouterPath("static/\(name)")) { request, _ in try self.serve(name, request: request, shared: true) }
        }
    }

    /// What needs credentials when the server has a token: metrics, the API document and the
    /// other static files.
    func registerProtected(on router: some RouterMethods<AppRequestContext>) {
        router.get("metrics", use: metrics)
        router.get("openapi.yaml", use: openAPI)
        router.get("static/:name", use: asset)
    }

    /// 200 `{"status":"ok"}` while the process serves HTTP at all: a supervisor restarts the
    /// server when this fails. It asks nothing of the store, so a database outage does not get
    /// every server restarted at once.
    @Sendable func live(_ request: Request, context: AppRequestContext) async throws -> Health {
        Health(status: "ok")
    }

    /// 200 `{"status":"ok"}` when the server takes work: not draining, and the catalog, the store
    /// folder and the object store (if any) each answer within 3 s
    /// (``AttachmentStore/checkReadiness(within:)``). Else 503: `draining`, or `unhealthy` with a
    /// generic reason. Anyone may ask, so the answer names no database or object store address
    /// (nor any other detail of the failure): that goes to the server log. `/health` is the same.
    @Sendable func ready(_ request: Request, context: AppRequestContext) async throws -> Health {
        guard !dependencies.readiness.isDraining else {
            throw ServerError(.serviceUnavailable, code: "draining", message: "the server is stopping; ask another")
        }
        let readiness = await dependencies.readiness.storeChecks.readiness(of: dependencies.store)
        guard readiness.isReady else {
            for check in readiness.problems {
                context.logger.error("health check failed", metadata: ["part": "\(check.part)", "error": "\(check.problem ?? "")"])
            }
            throw ServerError(.serviceUnavailable, code: "unhealthy",
                              message: "the store does not answer; the server's log says why")
        }
        return Health(status: "ok")
    }

    struct Health: ResponseCodable { var status: String }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        await ScrapeGauges.sample(dependencies)
        let bytes = dependencies.metrics.render()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        try serve("openapi.yaml", request: request, cacheControl: CacheControl.revalidate)
    }

    @Sendable func asset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard name != "openapi.yaml" else { throw ServerError.notFound("no file \(name)") }
        return try serve(name, request: request, shared: false)
    }

    /// Static file `name`, cacheable for good when the address names its current version: by
    /// shared caches too when it is `shared` (anyone may fetch it), else by the client alone.
    private func serve(_ name: String, request: Request, shared: Bool) throws -> Response {
        let versioned = request.uri.queryParameters.get("v") == dependencies.assets[name]?.version
        let immutable = shared ? CacheControl.immutablePublic : CacheControl.immutablePrivate
        return try serve(name, request: request, cacheControl: versioned ? immutable : CacheControl.revalidate)
    }

    private func serve(_ name: String, request: Request, cacheControl: String) throws -> Response {
        guard let asset = dependencies.assets[name] else { throw ServerError.notFound("no file \(name)") }
        let tag = "\"\(asset.version)\""
        var headers: HTTPFields = [.eTag: tag, .cacheControl: cacheControl]
        if EntityTag.ifNoneMatch(request.headers[.ifNoneMatch], matches: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.bytes))
    }
}
