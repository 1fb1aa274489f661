import Benchmark

/// Micro-benchmarks of the store's hot paths, run by `make bench` through package-benchmark
/// (`swift package benchmark`), each in its own process:
///
/// - SHA-256 over a 16 MiB buffer (swift-crypto), in bytes per second;
/// - ingest of the 3.7 MB seed photo, the same content each time (the deduplication path) and
///   new content each time (the full write + fsync path);
/// - a 200 px thumbnail of a 12 MP baseline JPEG and of the same picture coded progressive;
/// - a thumbnail request answered from the memory cache, and the catalog read it starts with.
///
/// Inputs come from the photo corpus: `$ATTACH_CORPUS`, else `<package>/.cache/corpus`
/// (`make corpus`). Scratch stores go to `$TMPDIR` (default `/tmp`), whose filesystem is what
/// the ingest benchmarks measure. `BENCH_SMOKE=1` runs one iteration of each, a check that
/// they still work rather than a measurement.
let benchmarks: @Sendable () -> Void = {
    HashBenchmarks.register()
    IngestBenchmarks.register()
    ThumbnailBenchmarks.register()
}
