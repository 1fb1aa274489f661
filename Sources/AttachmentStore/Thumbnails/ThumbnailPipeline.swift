import AsyncCoordination
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
    private struct State {
        var statistics = ThumbnailStatistics()
    }

    /// Threads for libvips: as many as renders may run at once, shared by every store in the process.
    private static let renderPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    let configuration: ThumbnailConfiguration
    /// ffprobe and ffmpeg, for videos' posters.
    let videoTools: VideoTools
    let memory: MemoryCache<ThumbnailKey, Thumbnail>
    let disk: ThumbnailDiskCache
    /// The render slots, visible requests first; internal so tests can hold a slot and order
    /// the queue deterministically.
    let scheduler: AsyncGate
    private let state = Mutex(State())
    /// The jobs under way, one per (content, size).
    private let jobs = SingleFlight<ThumbnailKey, Thumbnail, Never>()
    private let logger: Logger

    init(configuration: ThumbnailConfiguration, videoTools: VideoTools, cachePath: String, logger: Logger) {
        self.configuration = configuration
        self.videoTools = videoTools
        self.memory = MemoryCache(byteLimit: configuration.memoryCacheByteLimit)
        self.disk = ThumbnailDiskCache(storeCachePath: cachePath, options: configuration.renderOptions)
        self.scheduler = AsyncGate(slots: configuration.maximumConcurrentRenders)
        self.logger = logger
    }

    /// The thumbnail of `source` (content `key.hash`) at `key.size`.
    /// - Throws: ``ImagingError`` when the source cannot be rendered; `CancellationError`.
    func thumbnail(for key: ThumbnailKey, source: ThumbnailSource, priority: ThumbnailPriority) async throws -> Thumbnail {
        if let hit = memory.value(forKey: key) {
            state.withLock { $0.statistics.requests += 1; $0.statistics.memoryHits += 1 }
            return hit
        }
        // A requester already gone must not start (or restart) a job.
        try Task.checkCancellation()
        let job = join(key, source: source, priority: priority, background: false)
        return try await jobs.value(of: job, for: key) {
            self.state.withLock { $0.statistics.jobsCancelled += 1 }
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

    /// Starts making a thumbnail in the background, unless it is cached or under way.
    func prefetch(_ key: ThumbnailKey, source: ThumbnailSource) {
        guard memory.value(forKey: key) == nil else { return }
        _ = join(key, source: source, priority: .prefetch, background: true)
    }

    /// Waits until every job in flight now has ended (prefetches included).
    func drain() async {
        for task in jobs.tasks { _ = try? await task.value }
    }

    /// Counters since the pipeline started.
    var statistics: ThumbnailStatistics {
        var snapshot = state.withLock { $0.statistics }
        snapshot.jobsInFlight = jobs.jobsInFlight
        snapshot.queueDepth = scheduler.queueDepth
        return snapshot
    }

    // MARK: - Jobs

    /// Joins or starts the job for `key`. A visible request joining a queued prefetch moves it
    /// up to the visible queue.
    private func join(_ key: ThumbnailKey, source: ThumbnailSource, priority: ThumbnailPriority, background: Bool) -> SingleFlight<ThumbnailKey, Thumbnail, Never>.Ticket {
        let job = jobs.join(key, waiting: !background, priority: priority == .visible ? .userInitiated : .utility) { id in
            try await self.make(key, source: source, jobID: id, priority: priority)
        }
        state.withLock { state in
            state.statistics.requests += 1
            if !job.isNew { state.statistics.coalesced += 1 }
        }
        if !job.isNew && priority == .visible { scheduler.raise(id: job.id) }
        return job
    }

    /// Disk cache, then a render slot, then libvips (or ffmpeg, then libvips); stores the result in both caches.
    private func make(_ key: ThumbnailKey, source: ThumbnailSource, jobID: UInt64, priority: ThumbnailPriority) async throws -> Thumbnail {
        let disk = self.disk
        if let cached = try await BlockingPool.run({ disk.thumbnail(for: key) }) {
            state.withLock { $0.statistics.diskHits += 1 }
            memory.setValue(cached, forKey: key, cost: cached.data.count)
            return cached
        }
        try await scheduler.acquire(id: jobID, urgent: priority == .visible)
        defer { scheduler.release() }
        try Task.checkCancellation()

        state.withLock { $0.statistics.rendersStarted += 1 }
        let cancellation = RenderCancellation()
        let (options, tools, documentTools) = (configuration.renderOptions, videoTools, configuration.documentTools)
        let rendered: RenderedImage
        do {
            rendered = try await withTaskCancellationHandler {
                try await Self.renderPool.runIfActive {
                    // A render is derived work, not a read of the original the budget should count.
                    try LeastRecentlyRead.preservingLastRead(of: source.path) {
                        switch source.kind {
                        case .image:
                            try ThumbnailRenderer.render(fileAt: source.path, maxPixelSize: key.size, options: options, cancellation: cancellation)
                        case .video(let header):
                            try VideoPosterRenderer.render(fileAt: source.path, header: header, maxPixelSize: key.size, options: options,
                                                           tools: tools, cancellation: cancellation)
                        case .document(let probed):
                            try DocumentPageRenderer.render(fileAt: source.path, probed: probed, maxPixelSize: key.size, options: options,
                                                            tools: documentTools, cancellation: cancellation)
                        }
                    }
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
                                  width: rendered.width, height: rendered.height, isProvisional: key.peerCopyOf != nil)
        memory.setValue(thumbnail, forKey: key, cost: thumbnail.data.count)
        do {
            try await BlockingPool.run { try disk.store(thumbnail, for: key) }
        } catch {
            logger.warning("thumbnail not cached on disk; it will be rendered again", metadata: ["error": "\(error)"])
        }
        return thumbnail
    }
}
