import AttachmentStore
import Benchmark
import Foundation

/// `addAttachment(to:fromFile:)` of the 3.7 MB seed photo (a 12 MP phone-sized JPEG), into a
/// new note each iteration, thumbnails off: the ingest path alone.
enum IngestBenchmarks {
    static let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident]

    static func register() {
        // The same bytes every time: setup imports them once, so each iteration
        // copies and hashes into a staging file, finds the blob present, and drops the copy unsynced.
        registerBenchmark(
            "Ingest 3.7 MB JPEG, same content (dedup)",
            configuration: BenchmarkSettings.configuration(metrics: metrics, maxDuration: .seconds(10), maxIterations: 200),
            fixture: { try await IngestFixture.make(distinctContent: false) },
            body: ingestOnce
        )
        // New bytes every time (the iteration number in the file's last 8 bytes, written before
        // the clock starts): the full path, with fsync of the file, rename and fsync of its folder.
        // Each iteration leaves 3.7 MB in the scratch store, hence the lower iteration cap.
        registerBenchmark(
            "Ingest 3.7 MB JPEG, distinct content (write + fsync)",
            configuration: BenchmarkSettings.configuration(metrics: metrics, maxDuration: .seconds(10), maxIterations: 100),
            fixture: { try await IngestFixture.make(distinctContent: true) },
            body: ingestOnce
        )
    }

    /// One iteration: a new note and its content (untimed), then the timed import.
    private static func ingestOnce(_ benchmark: Benchmark, _ fixture: IngestFixture) async throws {
        let note = try await fixture.store.createNote(title: "iteration \(benchmark.currentIteration)")
        try fixture.prepareSource()
        benchmark.startMeasurement()
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: fixture.source)
        benchmark.stopMeasurement()
        blackHole(attachment)
    }
}
