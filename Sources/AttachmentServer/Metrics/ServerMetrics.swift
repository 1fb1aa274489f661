import CoreMetrics
import Foundation
import Prometheus

/// The server's metrics, kept in its own Prometheus registry and rendered at `/metrics`.
///
/// Metrics go through swift-metrics types made with an explicit factory, so every application
/// (and every test) has its own registry and nothing depends on the process-wide
/// `MetricsSystem.bootstrap`.
public struct ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The per-request counters and timers, made once per label set.
    private let handles: MetricHandles
    /// Bytes received in upload bodies (`attach_upload_bytes_total`).
    let uploadBytes: CoreMetrics.Counter
    /// Uploads being received right now (`attach_uploads_in_progress`).
    let uploadsInProgress: Meter

    /// Creates metrics in a new registry.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = PrometheusMetricsFactory(registry: registry)
        self.handles = MetricHandles(factory: factory)
        self.uploadBytes = CoreMetrics.Counter(label: "attach_upload_bytes_total", factory: factory)
        self.uploadsInProgress = Meter(label: "attach_uploads_in_progress", factory: factory)
    }

    /// Counts one answered request (`http_requests_total{route,method,status}`) and records how
    /// long the handler took (`http_request_duration_seconds{route,method}`).
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let series = handles.request(route: route, method: method, status: status)
        series.counter.increment()
        series.timer.recordNanoseconds(duration.nanoseconds)
    }

    /// Counts one thumbnail request by how it was answered (`attach_thumbnail_requests_total{result}`).
    func recordThumbnail(result: String) {
        handles.counter("attach_thumbnail_requests_total", [("result", result)]).increment()
    }

    /// Adds `amount` to a counter (`attach_scrub_*_total`, `attach_evicted_*_total`,
    /// `attach_connections_refused_total{reason}`), of the series `dimensions` name.
    func count(_ label: String, by amount: Int64, dimensions: [(String, String)] = []) {
        handles.counter(label, dimensions).increment(by: amount)
    }

    /// Sets a gauge read from elsewhere at scrape time (thumbnail queue depth, cache counters).
    func set(gauge label: String, to value: Double, dimensions: [(String, String)] = []) {
        Meter(label: label, dimensions: dimensions, factory: factory).set(value)
    }

    /// The Prometheus text exposition of every metric.
    func render() -> [UInt8] { registry.emitToBuffer() }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
