import AttachmentStore
import Logging
import ServiceLifecycle

/// Purges, every `interval` while the server runs (and once at start), what has been in the
/// trash longer than the store's trash retention (`--trash-days`): each purge is a tombstone
/// that travels, and `gc` may then free the bytes. Counted in `/metrics`
/// (`attach_trash_purged_total`) and logged when anything went.
struct TrashPurgeService: Service {
    let store: AttachmentStore
    let interval: Duration
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        await PeriodicWork.run(every: interval, logger: logger, failure: "trash not purged this time") {
            let report = try await store.purgeExpiredTrash()
            let purged = report.notes + report.attachments
            metrics.count("attach_trash_purged_total", by: Int64(purged))
            if purged > 0 {
                logger.info("purged from the trash after its retention", metadata: ["notes": "\(report.notes)", "attachments": "\(report.attachments)"])
            }
        }
    }
}
