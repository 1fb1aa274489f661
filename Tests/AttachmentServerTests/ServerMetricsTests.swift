@testable import AttachmentServer
import Foundation
import Testing

/// ``ServerMetrics`` on its own registry, read back from its Prometheus text: request counts
/// labelled by route, method and status, request durations by route and method, thumbnail
/// results, counters and gauges, and the independence of two servers' registries.
@Suite("Server metrics")
struct ServerMetricsTests {
    /// The sample lines of the exposition (no `# HELP` or `# TYPE`).
    static func samples(_ metrics: ServerMetrics) -> [String] {
        String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    /// The value of the one sample named exactly `series` (name and labels), if there is one.
    static func value(_ series: String, in metrics: ServerMetrics) -> Double? {
        let matches = samples(metrics).filter { $0.hasPrefix(series + " ") }
        guard matches.count == 1, let text = matches[0].split(separator: " ").last else { return nil }
        return Double(text)
    }

    @Test("a new registry has the upload counter and gauge at zero and nothing else counted")
    func freshRegistry() {
        let metrics = ServerMetrics()
        #expect(Self.value("attach_upload_bytes_total", in: metrics) == 0)
        #expect(Self.value("attach_uploads_in_progress", in: metrics) == 0)
        #expect(!Self.samples(metrics).contains { $0.hasPrefix("http_requests_total") })
    }

    @Test("requests are counted per route, method and status; the same three add up")
    func requestCounts() {
        let metrics = ServerMetrics()
        metrics.recordRequest(route: "/api/notes", method: "GET", status: 200, duration: .milliseconds(3))
        metrics.recordRequest(route: "/api/notes", method: "GET", status: 200, duration: .milliseconds(5))
        metrics.recordRequest(route: "/api/notes", method: "POST", status: 201, duration: .milliseconds(5))
        metrics.recordRequest(route: "/api/notes/{id}", method: "GET", status: 404, duration: .milliseconds(1))
        metrics.recordRequest(route: "unmatched", method: "GET", status: 404, duration: .milliseconds(1))
        #expect(Self.value(#"http_requests_total{route="/api/notes",method="GET",status="200"}"#, in: metrics) == 2)
        #expect(Self.value(#"http_requests_total{route="/api/notes",method="POST",status="201"}"#, in: metrics) == 1)
        #expect(Self.value(#"http_requests_total{route="/api/notes/{id}",method="GET",status="404"}"#, in: metrics) == 1)
        #expect(Self.value(#"http_requests_total{route="unmatched",method="GET",status="404"}"#, in: metrics) == 1)
        #expect(Self.samples(metrics).filter { $0.hasPrefix("http_requests_total{") }.count == 4)
    }

    @Test("request durations are a histogram per route and method, in seconds, without the status")
    func requestDurations() throws {
        let metrics = ServerMetrics()
        metrics.recordRequest(route: "/api/notes", method: "GET", status: 200, duration: .milliseconds(1_500))
        metrics.recordRequest(route: "/api/notes", method: "GET", status: 500, duration: .milliseconds(500))
        #expect(Self.value(#"http_request_duration_seconds_count{route="/api/notes",method="GET"}"#, in: metrics) == 2)
        let sum = try #require(Self.value(#"http_request_duration_seconds_sum{route="/api/notes",method="GET"}"#, in: metrics))
        #expect(abs(sum - 2.0) < 0.000_001)
        let buckets = Self.samples(metrics).filter { $0.hasPrefix("http_request_duration_seconds_bucket{") }
        #expect(!buckets.isEmpty)
        #expect(buckets.allSatisfy { !$0.contains("status=") })
        #expect(buckets.contains { $0.contains(#"le="+Inf""#) && $0.hasSuffix(" 2") })
    }

    @Test("thumbnail requests are counted by how they were answered")
    func thumbnailResults() {
        let metrics = ServerMetrics()
        for result in ["cache_hit", "cache_hit", "rendered", "not_modified", "not_an_image"] { metrics.recordThumbnail(result: result) }
        #expect(Self.value(#"attach_thumbnail_requests_total{result="cache_hit"}"#, in: metrics) == 2)
        #expect(Self.value(#"attach_thumbnail_requests_total{result="rendered"}"#, in: metrics) == 1)
        #expect(Self.value(#"attach_thumbnail_requests_total{result="not_modified"}"#, in: metrics) == 1)
        #expect(Self.value(#"attach_thumbnail_requests_total{result="not_an_image"}"#, in: metrics) == 1)
    }

    @Test("counters add what they are given")
    func counters() {
        let metrics = ServerMetrics()
        metrics.count("attach_evicted_bytes_total", by: 1_000)
        metrics.count("attach_evicted_bytes_total", by: 24)
        metrics.count("attach_scrub_bytes_total", by: 0)
        #expect(Self.value("attach_evicted_bytes_total", in: metrics) == 1_024)
        #expect(Self.value("attach_scrub_bytes_total", in: metrics) == 0)
    }

    @Test("a gauge holds the last value set, separately for each set of dimensions")
    func gauges() {
        let metrics = ServerMetrics()
        metrics.set(gauge: "attach_thumbnail_queue_depth", to: 7)
        metrics.set(gauge: "attach_thumbnail_queue_depth", to: 3)
        metrics.set(gauge: "attach_thumbnail_cache_hits", to: 10, dimensions: [("cache", "memory")])
        metrics.set(gauge: "attach_thumbnail_cache_hits", to: 4, dimensions: [("cache", "disk")])
        metrics.set(gauge: "attach_thumbnail_cache_hits", to: 12, dimensions: [("cache", "memory")])
        #expect(Self.value("attach_thumbnail_queue_depth", in: metrics) == 3)
        #expect(Self.value(#"attach_thumbnail_cache_hits{cache="memory"}"#, in: metrics) == 12)
        #expect(Self.value(#"attach_thumbnail_cache_hits{cache="disk"}"#, in: metrics) == 4)
    }

    @Test("the upload bytes counter and in-progress gauge move as uploads do")
    func uploadMetrics() {
        let metrics = ServerMetrics()
        metrics.uploadsInProgress.increment()
        metrics.uploadsInProgress.increment()
        metrics.uploadBytes.increment(by: 4_096)
        metrics.uploadsInProgress.decrement()
        #expect(Self.value("attach_upload_bytes_total", in: metrics) == 4_096)
        #expect(Self.value("attach_uploads_in_progress", in: metrics) == 1)
    }

    @Test("two servers' metrics are separate: what one counts the other does not see")
    func separateRegistries() {
        let first = ServerMetrics()
        let second = ServerMetrics()
        first.recordRequest(route: "/health", method: "GET", status: 200, duration: .zero)
        first.uploadBytes.increment(by: 10)
        #expect(Self.value(#"http_requests_total{route="/health",method="GET",status="200"}"#, in: first) == 1)
        #expect(Self.value(#"http_requests_total{route="/health",method="GET",status="200"}"#, in: second) == nil)
        #expect(Self.value("attach_upload_bytes_total", in: second) == 0)
    }
}
