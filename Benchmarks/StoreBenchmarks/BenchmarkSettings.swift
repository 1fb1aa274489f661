import Benchmark
import Foundation

/// How long each benchmark runs: its own budget for `make bench`, or a single iteration
/// with no warm-up when `BENCH_SMOKE=1` (the CI smoke pass).
enum BenchmarkSettings {
    /// Whether `BENCH_SMOKE=1` is set.
    static var isSmoke: Bool { ProcessInfo.processInfo.environment["BENCH_SMOKE"] == "1" }

    /// A configuration measuring `metrics`, stopping at `maxDuration` or `maxIterations`,
    /// whichever comes first (one iteration in smoke mode).
    static func configuration(
        metrics: [BenchmarkMetric], maxDuration: Duration, maxIterations: Int, warmupIterations: Int = 1
    ) -> Benchmark.Configuration {
        if isSmoke {
            return .init(metrics: metrics, warmupIterations: 0, maxDuration: .milliseconds(1), maxIterations: 1)
        }
        return .init(metrics: metrics, warmupIterations: warmupIterations, maxDuration: maxDuration,
                     maxIterations: maxIterations)
    }
}
