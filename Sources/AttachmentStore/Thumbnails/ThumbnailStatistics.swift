/// Counters of a store's thumbnail pipeline since it was opened.
public struct ThumbnailStatistics: Sendable, Equatable, Codable {
    /// Requests made (`thumbnail(for:)`, `displayImage(for:)`, prefetches).
    public var requests = 0
    /// Requests answered from the memory cache.
    public var memoryHits = 0
    /// Jobs answered from the disk cache.
    public var diskHits = 0
    /// Requests that joined a job already under way for the same image and size.
    public var coalesced = 0
    /// Renders started in libvips.
    public var rendersStarted = 0
    /// Renders that produced an image.
    public var rendersFinished = 0
    /// Renders that failed (damaged or refused input).
    public var rendersFailed = 0
    /// Jobs cancelled because every waiter went away (queued or mid-render).
    public var jobsCancelled = 0
    /// Jobs waiting for a render slot now.
    public var queueDepth = 0
    /// Jobs in flight now (queued or rendering).
    public var jobsInFlight = 0
}
