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
            let elapsed = clock.now - start
            let route = context.endpointPath ?? "unmatched"
            metrics.recordRequest(route: route, method: request.method.rawValue, status: status, duration: elapsed)
            // The line's fields are only put together when it will be written.
            if context.logger.logLevel <= .info {
                var metadata: Logger.Metadata = [
                    "http.method": "\(request.method)",
                    "http.path": "\(request.uri.path)",
                    "http.route": "\(route)",
                    "http.status": "\(status)",
                    "duration_ms": "\(elapsed.nanoseconds / 1_000_000)",
                    "http.scheme": "\(context.client.scheme)",
                ]
                if let address = context.client.address { metadata["client.address"] = "\(address)" }
                if let proxy = context.client.proxy { metadata["net.proxy"] = "\(proxy)" }
                context.logger.info("request", metadata: metadata)
            }
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }
}
