import CatalogSQL
import Foundation

extension AttachmentStore {
    private static let maxLocalBytesKey = "maxLocalBytes"
    private static let maxThumbnailCacheBytesKey = "maxThumbnailCacheBytes"

    /// The budget recorded in the store's settings (no limits unless one was set).
    public func storageBudget() async throws -> StorageBudget {
        try await catalog.read { db in
            StorageBudget(
                maxLocalBytes: try StoreSetting.value(Self.maxLocalBytesKey, in: db).flatMap { Int64($0) },
                maxThumbnailCacheBytes: try StoreSetting.value(Self.maxThumbnailCacheBytesKey, in: db).flatMap { Int64($0) })
        }
    }

    /// Records `budget` in the store's settings; a `nil` part removes that limit. It takes
    /// effect at the next ``enforceStorageBudget()``.
    /// - Throws: ``Error/invalidArgument(_:)`` for a negative limit.
    public func setStorageBudget(_ budget: StorageBudget) async throws {
        for limit in [budget.maxLocalBytes, budget.maxThumbnailCacheBytes] {
            if let limit, limit < 0 { throw Error.invalidArgument("a storage limit cannot be negative (\(limit) bytes)") }
        }
        try await catalog.write { db in
            for (key, value) in [(Self.maxLocalBytesKey, budget.maxLocalBytes), (Self.maxThumbnailCacheBytesKey, budget.maxThumbnailCacheBytes)] {
                if let value {
                    try StoreSetting.set(key, String(value), in: db)
                } else {
                    try StoreSetting.remove(key, in: db)
                }
            }
        }
    }

    /// Brings local disk use within the ``StorageBudget``.
    ///
    /// Originals in the store folder go least recently read first, and only when the remote
    /// blob source names a peer that holds the same hash and size right now and gives back a
    /// sample of its bytes at a random offset: the only copy of anything stays, whatever the budget. An evicted blob is marked `evicted` in one catalog
    /// transaction and its file removed in a second that checks the mark is still there (so a
    /// crash between them leaves a spare file, never a record without bytes, and an upload of
    /// the same bytes meanwhile wins). Local copies of object-store originals and thumbnails are
    /// derived, and are simply removed, least recently read first. Playable copies of videos
    /// count against ``StorageBudget/maxLocalBytes`` and are removed (least recently read
    /// first) before any original is evicted. Anything read within
    /// ``Configuration/evictionGrace`` is spared. Partial peer downloads in `tmp/` count too:
    /// the leftovers of cut transfers are removed, oldest first, until they fit in the room
    /// the originals leave (downloads under way were admitted within the budget).
    public func enforceStorageBudget() async throws -> EvictionReport {
        let budget = try await storageBudget()
        var report = EvictionReport()
        let grace = configuration.evictionGrace
        try await finishInterruptedEvictions()
        // Playable copies of videos go first: what is left of them is room the originals lack.
        var originalsLimit = budget.maxLocalBytes
        if let limit = budget.maxLocalBytes {
            let trimmed = try await trim(renditions.root, to: max(0, limit - (try await localOriginalBytes())), grace: grace)
            (report.playableVideosRemoved, report.playableVideoBytesRemoved) = (trimmed.files, trimmed.bytes)
            originalsLimit = max(0, limit - trimmed.left)
        }
        if backend.placement.keepsOriginalsAsFiles {
            if let limit = originalsLimit { try await evictOriginals(downTo: limit, grace: grace, report: &report) }
        } else {
            let trimmed = try await trim(layout.cachePath + "/blobs", to: originalsLimit ?? .max, grace: grace)
            (report.localCopiesRemoved, report.localCopyBytesRemoved) = (trimmed.files, trimmed.bytes)
            report.localBytesBefore = trimmed.left + trimmed.bytes
            report.localBytesAfter = trimmed.left
        }
        if let limit = budget.maxLocalBytes {
            let trimmed = try await trimPartialDownloads(to: limit - report.localBytesAfter)
            (report.partialsRemoved, report.partialBytesRemoved) = (trimmed.files, trimmed.bytes)
        }
        report.partialBytes = await partialDownloadBytes()
        if let limit = budget.maxThumbnailCacheBytes {
            let trimmed = try await trim(thumbnails.disk.root, to: limit, grace: grace)
            (report.thumbnailsRemoved, report.thumbnailBytesRemoved) = (trimmed.files, trimmed.bytes)
        }
        if report.originalsEvicted + report.localCopiesRemoved + report.thumbnailsRemoved + report.partialsRemoved
            + report.playableVideosRemoved > 0 {
            configuration.logger.info("storage budget enforced", metadata: [
                "originals.evicted": "\(report.originalsEvicted)", "bytes.evicted": "\(report.bytesEvicted)",
                "copies.removed": "\(report.localCopiesRemoved)", "thumbnails.removed": "\(report.thumbnailsRemoved)",
                "partials.removed": "\(report.partialsRemoved)", "videos.removed": "\(report.playableVideosRemoved)",
                "local.bytes": "\(report.localBytesAfter)",
            ])
        }
        return report
    }

    /// The bytes of originals on this machine: present blobs in the store folder, or the local
    /// copies of object-store originals in `cache/blobs/`.
    private func localOriginalBytes() async throws -> Int64 {
        if backend.placement.keepsOriginalsAsFiles {
            return try await catalog.read { db in try BlobRecord.all(in: .present, in: db) }.reduce(0) { $0 + $1.byteCount }
        }
        let folder = layout.cachePath + "/blobs"
        return try await BlockingPool.run { FileTreeWalk.diskUsage(of: folder) }
    }

    /// Removes derived files under `folder`, least recently read first, down to `limit` bytes.
    private func trim(_ folder: String, to limit: Int64, grace: TimeInterval) async throws -> (files: Int, bytes: Int64, left: Int64) {
        try await BlockingPool.run { () throws -> (files: Int, bytes: Int64, left: Int64) in
            do throws(SystemError) {
                return try LeastRecentlyRead.trim(folder, to: limit, grace: grace)
            } catch {
                throw Error.writeFailed(path: folder, cause: .system(error))
            }
        }
    }

    /// Evicts present originals, least recently read first, while they exceed `limit`.
    private func evictOriginals(downTo limit: Int64, grace: TimeInterval, report: inout EvictionReport) async throws {
        let present = try await catalog.read { db in try BlobRecord.all(in: .present, in: db) }
        var local = present.reduce(Int64(0)) { $0 + $1.byteCount }
        report.localBytesBefore = local
        defer { report.localBytesAfter = local }
        guard local > limit else { return }
        let blobs = self.blobs
        // Every hash is checked before anything is evicted: a malformed one refuses the eviction.
        let hashes = try present.map { record throws(Error) in (record, try record.validatedHash) }
        let byLastRead = try await BlockingPool.run {
            hashes.map { ($0.0, $0.1, LeastRecentlyRead.lastRead(blobs.path(for: $0.1)) ?? .distantPast) }
                .sorted { $0.2 < $1.2 }
        }
        let spared = Date().addingTimeInterval(-grace)
        for (record, hash, lastRead) in byLastRead where local > limit {
            try Task.checkCancellation()
            guard lastRead < spared else { report.recentlyReadKept += 1; continue }
            let path = blobs.path(for: hash)
            guard let sample = try? await BlockingPool.run({ try BlobSample.random(ofFileAt: path, byteCount: record.byteCount) }),
                  let holder = await configuration.remoteBlobSource?.holder(of: hash, byteCount: record.byteCount, sample: sample) else {
                report.onlyCopiesKept += 1
                continue
            }
            guard try await evict(hash) else { continue }
            local -= record.byteCount
            report.originalsEvicted += 1
            report.bytesEvicted += record.byteCount
            configuration.logger.info("original evicted", metadata: ["blob": "\(hash)", "bytes": "\(record.byteCount)", "holder": "\(holder)"])
        }
    }

    /// Marks `hash` evicted if it is present, then removes its file; whether it did.
    private func evict(_ hash: BlobHash) async throws -> Bool {
        let marked = try await catalog.write { db in try BlobRecord.transition(hash.rawValue, from: .present, to: .evicted, in: db) }
        if marked { try await removeEvictedFile(hash) }
        return marked
    }

    /// Removes the file of an evicted blob, inside a write transaction that finds the blob still
    /// evicted (an ingest of the same bytes in between made it present again: the file stays).
    private func removeEvictedFile(_ hash: BlobHash) async throws {
        let path = blobs.path(for: hash)
        try await catalog.write { db in
            guard try BlobRecord.fetch(hash.rawValue, in: db)?.state == .evicted else { return }
            do throws(SystemError) {
                try POSIXFile.remove(path)
            } catch {
                throw Error.writeFailed(path: path, cause: .system(error))
            }
        }
    }

    /// Removes the files an eviction left behind when it was interrupted between its two steps.
    private func finishInterruptedEvictions() async throws {
        guard backend.placement.keepsOriginalsAsFiles else { return }
        let evicted = try await catalog.read { db in try BlobRecord.all(in: .evicted, in: db) }
        let blobs = self.blobs
        let hashes = try evicted.map { record throws(Error) in try record.validatedHash }
        let leftovers = try await BlockingPool.run {
            hashes.filter { ((try? POSIXFile.status(blobs.path(for: $0))) ?? nil) != nil }
        }
        for hash in leftovers { try await removeEvictedFile(hash) }
    }
}
