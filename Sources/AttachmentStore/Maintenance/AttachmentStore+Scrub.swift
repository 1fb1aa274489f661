import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Re-hashes present blobs, the ones never checked first and then the longest ago, until
    /// `byteLimit` bytes were read (at least one blob) or every blob was checked since `passStart`
    /// (default: now), which ends the pass. Blobs already quarantined are offered for repair first.
    /// A scrub spread over many calls passes the same `passStart` to each.
    ///
    /// A blob that fails is *quarantined* in one catalog transaction: marked `damaged` (its
    /// attachments report ``Attachment/State/damaged`` and are never served) and its file moved
    /// to `quarantine/`. It is then *repaired*: the remote blob source fetches a copy from a peer
    /// holding the same hash, which is verified like any download and put back; the quarantined
    /// file is then removed. Found and repaired counts are kept in the store's settings
    /// (``StoreStatistics/scrubDamageFound``, ``StoreStatistics/scrubRepaired``).
    public func scrub(upTo byteLimit: Int64, passStart: Date = Date()) async throws -> ScrubReport {
        var report = ScrubReport()
        try await repairQuarantined(into: &report)
        // Whole milliseconds, as the catalog keeps `checkedAt`: a blob checked in this run is never before it.
        let started = Date(timeIntervalSince1970: (passStart.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        while report.blobsChecked == 0 || report.bytesChecked < byteLimit {
            try Task.checkCancellation()
            guard let record = try await catalog.read({ db in try BlobRecord.scrubOrder(limit: 1, in: db).first }),
                  (record.checkedAt ?? .distantPast) < started else {
                report.passFinished = true
                break
            }
            let hash = try record.validatedHash
            let finding = try await inspect(record, hash: hash)
            report.blobsChecked += 1
            report.bytesChecked += record.byteCount
            if let (kind, detail) = finding {
                guard try await quarantine(hash, reason: "\(kind.rawValue): \(detail)") else { continue }
                report.quarantined.append(hash)
                try await repair(hash, byteCount: record.byteCount, into: &report)
            } else {
                try await catalog.write { db in try BlobRecord.markChecked(record.hash, at: Date(), in: db) }
            }
        }
        return report
    }

    /// Repairs what `verify` found: each damaged blob is quarantined (if it was not already) and
    /// a verified copy fetched from a peer holding the same hash.
    public func repair(_ damage: [VerificationReport.Damage]) async throws -> ScrubReport {
        var report = ScrubReport()
        for found in damage {
            try Task.checkCancellation()
            guard let record = try await catalog.read({ db in try BlobRecord.fetch(found.hash.rawValue, in: db) }) else { continue }
            if record.state == .present {
                guard try await quarantine(found.hash, reason: "\(found.kind.rawValue): \(found.detail)") else { continue }
                report.quarantined.append(found.hash)
            }
            try await repair(found.hash, byteCount: record.byteCount, into: &report)
        }
        return report
    }

    /// Offers every quarantined blob for repair again (a peer may hold it now).
    private func repairQuarantined(into report: inout ScrubReport) async throws {
        let damaged = try await catalog.read { db in try BlobRecord.all(in: .damaged, in: db) }
        // Every hash is checked before the first repair: a malformed one refuses the whole scrub.
        for (hash, byteCount) in try damaged.map({ record throws(Error) in (try record.validatedHash, record.byteCount) }) {
            try await repair(hash, byteCount: byteCount, into: &report)
        }
    }

    /// Marks a present blob damaged and moves its bytes out of reach; whether it did (a blob
    /// evicted or collected meanwhile is not damage).
    private func quarantine(_ hash: BlobHash, reason: String) async throws -> Bool {
        let backend = self.backend
        let folder = layout.quarantinePath
        let moved = try await catalog.write { db -> Bool in
            guard try BlobRecord.transition(hash.rawValue, from: .present, to: .damaged, in: db) else { return false }
            try StoreSetting.increment(ScrubCounter.found, in: db)
            do throws(SystemError) {
                try backend.quarantine(hash, into: folder)
            } catch {
                throw Error.writeFailed(path: folder, cause: .system(error))
            }
            return true
        }
        if moved {
            configuration.logger.error("blob damaged: quarantined, never served until repaired",
                                       metadata: ["blob": "\(hash)", "reason": "\(reason)"])
        }
        return moved
    }

    /// Fetches a verified copy of a damaged blob from the remote blob source.
    private func repair(_ hash: BlobHash, byteCount: Int64, into report: inout ScrubReport) async throws {
        guard let source = configuration.remoteBlobSource else {
            report.unrepaired.append(.init(hash: hash, reason: "no peer is configured to repair it from"))
            return
        }
        do {
            try await source.fetch(hash, byteCount: byteCount, into: self)
            report.repaired.append(hash)
            configuration.logger.notice("damaged blob repaired", metadata: ["blob": "\(hash)"])
        } catch let error as CancellationError {
            throw error
        } catch {
            report.unrepaired.append(.init(hash: hash, reason: String(describing: error)))
            configuration.logger.warning("damaged blob not repaired yet", metadata: ["blob": "\(hash)", "error": "\(error)"])
        }
    }

    /// Removes the quarantined file of a blob that was repaired. It is only a spare copy of
    /// wrong bytes, so a failure is logged, not thrown.
    func releaseQuarantined(_ hash: BlobHash) async {
        let path = layout.quarantinePath + "/" + hash.rawValue
        do {
            try await BlockingPool.run { try POSIXFile.remove(path) }
        } catch {
            configuration.logger.warning("a repaired blob's quarantined copy stays", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
