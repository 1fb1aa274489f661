import Foundation
import Imaging
import Logging
import NIOPosix
import Synchronization

/// Makes thumbnails in the background: one job per (content, size), at most N renders at
/// once, visible requests before prefetches, results cached in memory and on disk.
///
/// - Requests for a thumbnail already being made join that job instead of starting another.
/// - A job lives as long as someone waits for it: when every waiter has cancelled, the job
///   is cancelled too — dropped from the queue, or stopped inside libvips.
/// - Prefetch jobs (after an import) have no waiter and run to the end at low priority.
///
/// All coordination state sits behind one mutex; decoding runs on a dedicated thread pool,
/// never on Swift's cooperative pool and never under the lock.
final class ThumbnailPipeline: Sendable {
    private struct Job {
        let id: UInt64
        let task: Task<Thumbnail, any Error>
        var waiters: Int
        var priority: ThumbnailPriority
        /// Prefetch jobs keep running with no waiter.
        var background: Bool
    }

    private struct State {
        var jobs: [ThumbnailKey: Job] = [:]
        var nextID: UInt64 = 0
        var statistics = ThumbnailStatistics()
    }

    /// Threads for libvips: as many as renders may run at once, shared by every store in the process.
    private static let renderPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    let configuration: ThumbnailConfiguration
    let memory: MemoryCache<ThumbnailKey, Thumbnail>
    let disk: ThumbnailDiskCache
    /// The render slots; internal so tests can hold a slot and order the queue deterministically.
    let scheduler: RenderScheduler
    private let state = Mutex(State())
    private let logger: Logger

    init(configuration: ThumbnailConfiguration, cachePath: String, logger: Logger) {
        self.configuration = configuration
        self.memory = MemoryCache(byteLimit: configuration.memoryCacheByteLimit)
        self.disk = ThumbnailDiskCache(storeCachePath: cachePath, options: configuration.renderOptions)
        self.scheduler = RenderScheduler(slots: configuration.maximumConcurrentRenders)
        self.logger = logger
    }

    /// The thumbnail of the file at `sourcePath` (content `key.hash`) at `key.size`.
    /// - Throws: ``ImagingError`` when the source cannot be rendered; `CancellationError`.
    func thumbnail(for key: ThumbnailKey, sourcePath: String, priority: ThumbnailPriority) async throws -> Thumbnail {
        if let hit = memory.value(forKey: key) {
            state.withLock { $0.statistics.requests += 1; $0.statistics.memoryHits += 1 }
            return hit
        }
        // A requester already gone must not start (or restart) a job.
        try Task.checkCancellation()
        let job = join(key, sourcePath: sourcePath, priority: priority, background: false)
        return try await withTaskCancellationHandler {
            try await job.task.value
        } onCancel: {
            leave(key, jobID: job.id)
        }
    }

    /// The thumbnail from memory or the disk cache, without rendering anything.
    func cached(_ key: ThumbnailKey) async -> Thumbnail? {
        if let hit = memory.value(forKey: key) { return hit }
        let disk = self.disk
        guard let stored = try? await BlockingPool.run({ disk.thumbnail(for: key) }) else { return nil }
        memory.setValue(stored, forKey: key, cost: stored.data.count)
        return stored
    }

    /// Puts a thumbnail made elsewhere (by a peer) into both caches.
    func insert(_ thumbnail: Thumbnail, for key: ThumbnailKey) async throws {
        memory.setValue(thumbnail, forKey: key, cost: thumbnail.data.count)
        let disk = self.disk
        try await BlockingPool.run { try disk.store(thumbnail, for: key) }
    }

    /// Starts making a thumbnail in the background, unless it is cached or under way.
    func prefetch(_ key: ThumbnailKey, sourcePath: String) {
        guard memory.value(forKey: key) == nil else { return }
        _ = join(key, sourcePath: sourcePath, priority: .prefetch, background: true)
    }

    /// Waits until every job in flight now has ended (prefetches included).
    func drain() async {
        let tasks = state.withLock { $0.jobs.values.map(\.task) }
        for task in tasks { _ = try? await task.value }
    }

    /// Counters since the pipeline started.
    var statistics: ThumbnailStatistics {
        var snapshot = state.withLock { state in
            var statistics = state.statistics
            statistics.jobsInFlight = state.jobs.count
            return statistics
        }
        snapshot.queueDepth = scheduler.queueDepth
        return snapshot
    }

    // MARK: - Jobs

    private func join(_ key: ThumbnailKey, sourcePath: String, priority: ThumbnailPriority, background: Bool) -> Job {
        state.withLock { state in
            state.statistics.requests += 1
            if var job = state.jobs[key] {
                state.statistics.coalesced += 1
                if background { job.background = true } else { job.waiters += 1 }
                if priority > job.priority {
                    job.priority = priority
                    scheduler.raise(id: job.id)
                }
                state.jobs[key] = job
                return job
            }
            state.nextID += 1
            let id = state.nextID
            let task = Task(priority: priority == .visible ? .userInitiated : .utility) {
                defer { self.finish(key, jobID: id) }
                return try await self.make(key, sourcePath: sourcePath, jobID: id, priority: priority)
            }
            let job = Job(id: id, task: task, waiters: background ? 0 : 1, priority: priority, background: background)
            state.jobs[key] = job
            return job
        }
    }

    /// One waiter went away; the last one cancels the job (unless it is a prefetch).
    private func leave(_ key: ThumbnailKey, jobID: UInt64) {
        let cancelled = state.withLock { state -> Task<Thumbnail, any Error>? in
            guard var job = state.jobs[key], job.id == jobID else { return nil }
            job.waiters -= 1
            guard job.waiters <= 0, !job.background else {
                state.jobs[key] = job
                return nil
            }
            state.jobs[key] = nil
            state.statistics.jobsCancelled += 1
            return job.task
        }
        cancelled?.cancel()
    }

    private func finish(_ key: ThumbnailKey, jobID: UInt64) {
        state.withLock { state in
            if state.jobs[key]?.id == jobID { state.jobs[key] = nil }
        }
    }

    /// Disk cache, then a render slot, then libvips; stores the result in both caches.
    private func make(_ key: ThumbnailKey, sourcePath: String, jobID: UInt64, priority: ThumbnailPriority) async throws -> Thumbnail {
        let disk = self.disk
        if let cached = try await BlockingPool.run({ disk.thumbnail(for: key) }) {
            state.withLock { $0.statistics.diskHits += 1 }
            memory.setValue(cached, forKey: key, cost: cached.data.count)
            return cached
        }
        try await scheduler.acquire(id: jobID, priority: priority)
        defer { scheduler.release() }
        try Task.checkCancellation()

        state.withLock { $0.statistics.rendersStarted += 1 }
        let cancellation = RenderCancellation()
        let options = configuration.renderOptions
        let rendered: RenderedImage
        do {
            rendered = try await withTaskCancellationHandler {
                try await Self.renderPool.runIfActive {
                    try ThumbnailRenderer.render(fileAt: sourcePath, maxPixelSize: key.size, options: options, cancellation: cancellation)
                }
            } onCancel: {
                cancellation.cancel()
            }
        } catch ImagingError.cancelled {
            throw CancellationError()
        } catch {
            state.withLock { $0.statistics.rendersFailed += 1 }
            throw error
        }
        state.withLock { $0.statistics.rendersFinished += 1 }

        let thumbnail = Thumbnail(data: Data(rendered.data), mediaType: rendered.encoding.mediaType,
                                  width: rendered.width, height: rendered.height)
        memory.setValue(thumbnail, forKey: key, cost: thumbnail.data.count)
        do {
            try await BlockingPool.run { try disk.store(thumbnail, for: key) }
        } catch {
            logger.warning("thumbnail not cached on disk; it will be rendered again", metadata: ["error": "\(error)"])
        }
        return thumbnail
    }
}
