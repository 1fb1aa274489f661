import AsyncCoordination
import AttachmentStore
import Foundation
import Logging
import ServiceLifecycle

/// Re-hashes the store's blobs in the background, oldest-checked first, at most
/// `bytesPerSecond` on average; a damaged blob is quarantined and repaired from a peer by
/// ``AttachmentStore/scrub(upTo:passStart:)``. A pass starts at most every `minimumPassInterval`, so a
/// small store is not re-hashed in a tight loop. Counted in `/metrics`
/// (`attach_scrub_bytes_total`, `attach_scrub_blobs_total`, `attach_scrub_damaged_total`,
/// `attach_scrub_repaired_total`) and logged at the end of each pass.
struct ScrubService: Service {
    let store: AttachmentStore
    let bytesPerSecond: Int64
    let metrics: ServerMetrics
    let logger: Logger
    var minimumPassInterval: Duration = .seconds(10)
    /// The clock the pauses are waited on (the system's, unless a test drives one).
    var clock = LoopClock.continuous

    /// The pacing these settings give.
    var pacing: ScrubPacing { ScrubPacing(bytesPerSecond: bytesPerSecond, minimumPassInterval: minimumPassInterval) }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            let pacing = self.pacing
            var pass = (started: clock.now, date: Date(), blobs: 0, bytes: Int64(0), damaged: 0, repaired: 0)
            while !Task.isCancelled {
                let started = clock.now
                do {
                    // About one second's worth of bytes per step, then a pause that keeps the rate.
                    let report = try await store.scrub(upTo: bytesPerSecond, passStart: pass.date)
                    record(report)
                    pass.blobs += report.blobsChecked
                    pass.bytes += report.bytesChecked
                    pass.damaged += report.quarantined.count
                    pass.repaired += report.repaired.count
                    try await clock.sleep(for: pacing.pause(afterStepOf: report.bytesChecked, took: clock.now - started))
                    if report.passFinished {
                        logger.info("scrub pass finished", metadata: [
                            "blobs": "\(pass.blobs)", "bytes": "\(pass.bytes)", "damaged": "\(pass.damaged)", "repaired": "\(pass.repaired)",
                        ])
                        try await clock.sleep(for: pacing.pause(afterPassThatStarted: clock.now - pass.started))
                        pass = (clock.now, Date(), 0, 0, 0, 0)
                    }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("scrub step failed; trying again shortly", metadata: ["error": "\(error)"])
                    try? await clock.sleep(for: pacing.retryAfterFailure)
                }
            }
        }
    }

    private func record(_ report: ScrubReport) {
        metrics.count("attach_scrub_bytes_total", by: report.bytesChecked)
        metrics.count("attach_scrub_blobs_total", by: Int64(report.blobsChecked))
        metrics.count("attach_scrub_damaged_total", by: Int64(report.quarantined.count))
        metrics.count("attach_scrub_repaired_total", by: Int64(report.repaired.count))
    }
}
