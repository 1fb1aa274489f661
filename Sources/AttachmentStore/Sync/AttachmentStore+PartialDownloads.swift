import Foundation

extension AttachmentStore {
    /// Starts (or resumes) receiving the bytes of a remote blob from `peer` (its description,
    /// for the per-peer caps), once it fits ``Configuration/partialDownloads``: the oldest
    /// leftovers of cut transfers are removed to make room, first `peer`'s own. The overall
    /// byte cap is also held to the storage budget's `maxLocalBytes` when one is set.
    /// - Throws: ``Error/writeFailed(path:cause:)`` when another download of it is running, or
    ///   when the downloads under way already fill a cap.
    package func blobDownload(for hash: BlobHash, byteCount: Int64, from peer: String? = nil) async throws -> BlobDownload {
        let limits = configuration.partialDownloads
        let byteCap = min(limits.maxBytes, try await storageBudget().maxLocalBytes ?? .max)
        let partials = self.partials
        return try await BlockingPool.run {
            let reservation = try partials.admit(hash, bytes: byteCount, peer: peer, limits: limits, byteCap: byteCap)
            do {
                return try BlobDownload(store: self, hash: hash, expectedSize: byteCount, reservation: reservation)
            } catch {
                partials.end(reservation, completed: false)
                throw error
            }
        }
    }

    /// Removes the files in `tmp/` no writer holds (leftovers of cut transfers, of crashed
    /// ingests) once unchanged for ``PartialDownloadLimits/lifetime``. The server runs it
    /// periodically, so its `tmp/` empties itself without a `gc`.
    /// - Returns: how many files and bytes went.
    public func expireTemporaryFiles() async throws -> (files: Int, bytes: Int64) {
        var report = GarbageReport(dryRun: false)
        let lifetime = configuration.partialDownloads.lifetime.components
        let cutoff = Date().addingTimeInterval(-TimeInterval(lifetime.seconds) - TimeInterval(lifetime.attoseconds) / 1e18)
        try await collectTemporaryFiles(before: cutoff, into: &report)
        if report.temporaryFiles > 0 {
            configuration.logger.info("stale temporary files removed", metadata: [
                "files": "\(report.temporaryFiles)", "bytes": "\(report.temporaryBytes)",
            ])
        }
        return (report.temporaryFiles, report.temporaryBytes)
    }

    /// The bytes the partial peer downloads in `tmp/` hold now, live or left by cut transfers.
    package func partialDownloadBytes() async -> Int64 {
        let partials = self.partials
        return (try? await BlockingPool.run { partials.scan().reduce(Int64(0)) { $0 + $1.bytes } }) ?? 0
    }

    /// Removes leftovers of cut transfers, oldest first, until they take at most `limit` bytes.
    func trimPartialDownloads(to limit: Int64) async throws -> (files: Int, bytes: Int64) {
        let partials = self.partials
        return try await BlockingPool.run { partials.trimLeftovers(to: max(0, limit)) }
    }
}
