import HTTPTypes
import Hummingbird
import Logging

/// One structured log line and one metrics sample per request: method, path, route, status,
/// duration, the client's address (as a trusted proxy forwards it); failures that escaped the error middleware are counted as 500.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        var status = 500
        defer {
            Self.record(method: request.method, path: request.uri.path, route: context.endpointPath ?? "unmatched", status: status,
                        duration: clock.now - start, client: context.client, logger: context.logger, metrics: metrics)
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }

    /// The metrics sample and the log line of one answered request: here for every routed
    /// request, and from ``CachedThumbnailAnswers`` for those it answers before the router.
    static func record(
        method: HTTPRequest.Method, path: String, route: String, status: Int, duration: Duration, client: RequestClient,
        logger: Logger, metrics: ServerMetrics
    ) {
        metrics.recordRequest(route: route, method: method.rawValue, status: status, duration: duration)
        // The line's fields are only put together when it will be written.
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "http.method": "\(method)",
            "http.path": "\(path)",
            "http.route": "\(route)",
            "http.status": "\(status)",
            "duration_ms": "\(duration.nanoseconds / 1_000_000)",
            "http.scheme": "\(client.scheme)",
        ]
        if let address = client.address { metadata["client.address"] = "\(address)" }
        if let proxy = client.proxy { metadata["net.proxy"] = "\(proxy)" }
        logger.info("request", metadata: metadata)
    }
}
