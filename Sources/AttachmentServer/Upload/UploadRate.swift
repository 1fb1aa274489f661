/// The rule that cuts off an upload arriving slower than a minimum rate.
///
/// Only the time the server spends waiting for the client counts: while the store is busy
/// writing, the body is not read and the client is not to blame. Once that waiting adds up to
/// a `window`, the bytes that arrived meanwhile must average at least `minimumBytesPerSecond`;
/// then the count starts again. A byte-a-second client is cut after one window; a slow but
/// real link (a few KiB/s) never is.
struct UploadRate: Sendable {
    /// The slowest average accepted over a window, in bytes per second.
    let minimumBytesPerSecond: Int64
    /// How much waiting is averaged over before judging.
    let window: Duration
    private var waited: Duration = .zero
    private var bytes: Int64 = 0

    /// A rule requiring `minimumBytesPerSecond` on average over every `window` of waiting.
    init(minimumBytesPerSecond: Int64, window: Duration) {
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.window = window
    }

    /// Records `count` bytes that arrived after the server waited `wait` for them.
    /// - Returns: `false` when a full window of waiting brought fewer bytes than the minimum.
    mutating func record(_ count: Int, after wait: Duration) -> Bool {
        waited += wait
        bytes += Int64(count)
        guard waited >= window else { return true }
        let components = waited.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        let fastEnough = Double(bytes) >= Double(minimumBytesPerSecond) * seconds
        waited = .zero
        bytes = 0
        return fastEnough
    }
}
