import AttachmentStore
import Logging
import ServiceLifecycle

/// Enforces the store's ``StorageBudget`` every `interval` while the server runs: evicts the
/// least recently read originals a peer holds, trims local copies, thumbnails and the leftovers
/// of cut peer transfers, and removes the dead files of `tmp/` older than the store's
/// `PartialDownloadLimits.lifetime` (so `tmp/` empties itself without a `gc`). What it did is
/// logged by the store and counted in `/metrics` (`attach_evicted_originals_total`,
/// `attach_evicted_bytes_total`, `attach_local_original_bytes`, `attach_partial_download_bytes`,
/// `attach_expired_temporary_files_total`).
struct StorageBudgetService: Service {
    let store: AttachmentStore
    let interval: Duration
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        await PeriodicWork.run(every: interval, logger: logger, failure: "storage budget not enforced this time") {
            let expired = try await store.expireTemporaryFiles()
            metrics.count("attach_expired_temporary_files_total", by: Int64(expired.files))
            let report = try await store.enforceStorageBudget()
            metrics.count("attach_evicted_originals_total", by: Int64(report.originalsEvicted))
            metrics.count("attach_evicted_bytes_total", by: report.bytesEvicted)
            metrics.count("attach_trimmed_cache_files_total", by: Int64(report.localCopiesRemoved + report.thumbnailsRemoved))
            metrics.set(gauge: "attach_local_original_bytes", to: Double(report.localBytesAfter))
            metrics.set(gauge: "attach_partial_download_bytes", to: Double(report.partialBytes))
        }
    }
}
