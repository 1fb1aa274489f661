/// Bounds on what the store will decode, checked from the header before any pixel is read.
public struct ImageLimits: Sendable, Equatable {
    /// The most pixels (width × height as stored) an image may declare. Default 100 megapixels.
    public var maximumPixels: Int
    /// The largest file that will be decoded. Default 256 MiB.
    public var maximumBytes: Int64

    /// Limits with the given bounds (defaults: 100 megapixels, 256 MiB).
    public init(maximumPixels: Int = 100_000_000, maximumBytes: Int64 = 256 << 20) {
        self.maximumPixels = maximumPixels
        self.maximumBytes = maximumBytes
    }
}
