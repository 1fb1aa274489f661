import AttachmentStore
import Benchmark
import Foundation
import Imaging

/// 200 px thumbnails: libvips rendering a 12 MP JPEG coded baseline and progressive, and the
/// store answering a request from its memory cache (beside the catalog read that request makes).
enum ThumbnailBenchmarks {
    /// The store's default thumbnail size.
    static let size = 200

    static func register() {
        let renderMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident]
        registerBenchmark(
            "Thumbnail 200 px, 12 MP baseline JPEG",
            configuration: BenchmarkSettings.configuration(metrics: renderMetrics, maxDuration: .seconds(10), maxIterations: 300),
            fixture: { try RenderFixture.baseline() },
            body: renderOnce
        )
        registerBenchmark(
            "Thumbnail 200 px, 12 MP progressive JPEG",
            configuration: BenchmarkSettings.configuration(metrics: renderMetrics, maxDuration: .seconds(10), maxIterations: 300),
            fixture: { try await RenderFixture.progressive() },
            body: renderOnce
        )
        // Includes what every request costs before the cache: the catalog read of the attachment.
        registerBenchmark(
            "Thumbnail memory-cache hit, store.thumbnail(for:)",
            configuration: BenchmarkSettings.configuration(
                metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 20_000
            ),
            fixture: { try await CachedThumbnailFixture.make() },
            body: { _, fixture in blackHole(try await fixture.store.thumbnail(for: fixture.attachment.id)) }
        )
        // That catalog read alone, to tell it from the cache lookup in the hit above.
        registerBenchmark(
            "Catalog read, store.attachment(_:)",
            configuration: BenchmarkSettings.configuration(
                metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 20_000
            ),
            fixture: { try await CachedThumbnailFixture.make() },
            body: { _, fixture in blackHole(try await fixture.store.attachment(fixture.attachment.id)) }
        )
    }

    /// One render, as the store's render pool runs it (one libvips thread per operation).
    private static func renderOnce(_ benchmark: Benchmark, _ fixture: RenderFixture) throws {
        let image = try ThumbnailRenderer.render(fileAt: fixture.path, maxPixelSize: size)
        guard max(image.width, image.height) == size else {
            return benchmark.error("rendered \(image.width)x\(image.height), expected \(size) px on the longest side")
        }
        blackHole(image)
    }
}
