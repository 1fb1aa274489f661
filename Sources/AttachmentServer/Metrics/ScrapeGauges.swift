/// The gauges read from other parts of the server just before `/metrics` is scraped, rather
/// than counted as things happen: the store's thumbnail pipeline and the sync ledger.
enum ScrapeGauges {
    /// Copies the thumbnail pipeline's counters into gauges before a scrape (requests, cache
    /// hits by level, renders by outcome, cancelled jobs, queue depth, jobs in flight), and
    /// each peer's refused changes from the sync ledger.
    static func sample(_ dependencies: ServerDependencies) async {
        let statistics = dependencies.store.thumbnailStatistics
        let metrics = dependencies.metrics
        metrics.set(gauge: "attach_thumbnail_pipeline_requests", to: Double(statistics.requests))
        metrics.set(gauge: "attach_thumbnail_cache_hits", to: Double(statistics.memoryHits), dimensions: [("cache", "memory")])
        metrics.set(gauge: "attach_thumbnail_cache_hits", to: Double(statistics.diskHits), dimensions: [("cache", "disk")])
        metrics.set(gauge: "attach_thumbnail_cache_misses", to: Double(statistics.rendersStarted))
        metrics.set(gauge: "attach_thumbnail_coalesced", to: Double(statistics.coalesced))
        metrics.set(gauge: "attach_thumbnail_renders", to: Double(statistics.rendersFinished), dimensions: [("result", "finished")])
        metrics.set(gauge: "attach_thumbnail_renders", to: Double(statistics.rendersFailed), dimensions: [("result", "failed")])
        metrics.set(gauge: "attach_thumbnail_jobs_cancelled", to: Double(statistics.jobsCancelled))
        metrics.set(gauge: "attach_thumbnail_queue_depth", to: Double(statistics.queueDepth))
        metrics.set(gauge: "attach_thumbnail_jobs_in_flight", to: Double(statistics.jobsInFlight))
        for entry in dependencies.syncLedger.snapshot {
            metrics.set(gauge: "attach_sync_invalid_changes", to: Double(entry.invalidChanges), dimensions: [("peer", entry.peer)])
        }
    }
}
