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

    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[Key: CoreMetrics.Timer]>([:])

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

    /// The handle `table` keeps for `key`, or the one `make` makes (made outside the lock; when
    /// two requests make one at once, the first kept wins).
    private static func handle<Handle: Sendable>(_ key: Key, in table: borrowing Mutex<[Key: Handle]>,
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
