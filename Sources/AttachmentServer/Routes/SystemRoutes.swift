import Hummingbird

/// `/health`, `/metrics` (Prometheus text), `/openapi.yaml` and the web UI's `/static/` files.
struct SystemRoutes {
    let dependencies: ServerDependencies

    /// What anyone may read: `/health` and the login page's own static files.
    func registerPublic(on router: some RouterMethods<AppRequestContext>) {
        router.get("health", use: health)
        for name in LoginPage.assetNames.sorted() {
            router.get(RouterPath("static/\(name)")) { request, _ in try self.serve(name, request: request) }
        }
    }

    /// What needs credentials when the server has a token: metrics, the API document and the
    /// other static files.
    func registerProtected(on router: some RouterMethods<AppRequestContext>) {
        router.get("metrics", use: metrics)
        router.get("openapi.yaml", use: openAPI)
        router.get("static/:name", use: asset)
    }

    /// 200 `{"status":"ok"}` when the catalog answers a query.
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Health {
        _ = try await dependencies.store.notes(limit: 1)
        return Health(status: "ok")
    }

    struct Health: ResponseCodable { var status: String }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        await ThumbnailRoute.sampleGauges(dependencies)
        let bytes = dependencies.metrics.render()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        try serve("openapi.yaml", request: request, cacheControl: "no-cache")
    }

    @Sendable func asset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard name != "openapi.yaml" else { throw ServerError.notFound("no file \(name)") }
        return try serve(name, request: request)
    }

    /// Static file `name`, cacheable for good when the address names its current version.
    private func serve(_ name: String, request: Request) throws -> Response {
        let versioned = request.uri.queryParameters.get("v") == dependencies.assets[name]?.version
        return try serve(name, request: request, cacheControl: versioned ? "public, max-age=31536000, immutable" : "no-cache")
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
