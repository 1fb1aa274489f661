import CoreMetrics
import Synchronization

/// The swift-metrics handles the server has made, kept by name and labels, so that a request
/// costs one dictionary look-up instead of asking the Prometheus registry for its metric
/// again (which validates and joins the labels and takes the registry's lock every time).
/// A label set seen once is kept for the life of the server: routes, methods, statuses and
/// results are few and fixed (never a path or a client's value).
final class MetricHandles: Sendable {
    private struct Key: Hashable {
        let label: String
        let dimensions: [String]

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
        }
    }

    /// One answered request's series: route, method and status.
    private struct RequestSeries: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// A request series' counter, and the timer of its route and method.
    struct RequestHandles: Sendable {
        let counter: CoreMetrics.Counter
        let timer: CoreMetrics.Timer
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[Key: CoreMetrics.Timer]>([:])
    /// Every request looks here, so it is keyed by plain fields rather than label arrays.
    private let requests = Mutex<[RequestSeries: RequestHandles]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// The counter `label` with `dimensions`, made on first use.
    func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        Self.handle(Key(label, dimensions), in: counters) { CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory) }
    }

    /// The timer `label` with `dimensions`, made on first use.
    func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        Self.handle(Key(label, dimensions), in: timers) { CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory) }
    }

    /// The `http_requests_total{route,method,status}` counter and the
    /// `http_request_duration_seconds{route,method}` timer of one answered request.
    func request(route: String, method: String, status: Int) -> RequestHandles {
        Self.handle(RequestSeries(route: route, method: method, status: status), in: requests) {
            RequestHandles(counter: counter("http_requests_total", [("route", route), ("method", method), ("status", String(status))]),
                           timer: timer("http_request_duration_seconds", [("route", route), ("method", method)]))
        }
    }

    /// The handle `table` keeps for `key`, or the one `make` makes (made outside the lock; when
    /// two requests make one at once, the first kept wins).
    private static func handle<Series: Hashable & Sendable, Handle: Sendable>(_ key: Series, in table: borrowing Mutex<[Series: Handle]>,
                                                                   make: () -> Handle) -> Handle {
        if let known = table.withLock({ $0[key] }) { return known }
        let made = make()
        return table.withLock { handles in
            if let raced = handles[key] { return raced }
            handles[key] = made
            return made
        }
    }
}
