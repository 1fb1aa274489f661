/// Bounds on what the store will decode, checked from the header before any pixel is read.
public struct ImageLimits: Sendable, Equatable {
    /// The most pixels (width × height as stored) an image may declare. Default 100 megapixels.
    public var maximumPixels: Int
    /// The largest file that will be decoded. Default 256 MiB.
    public var maximumBytes: Int64
    /// The most memory one frame may take decoded at full size (width × height × bands × bytes
    /// per band, from the header). Default 1 GiB: 100 megapixels of 16-bit RGBA (800 MB) fit;
    /// the same pixels as 32-bit float (1.2 GB for RGB) do not.
    public var maximumDecodedBytes: Int64

    /// Limits with the given bounds (defaults: 100 megapixels, 256 MiB of file, 1 GiB decoded).
    public init(maximumPixels: Int = 100_000_000, maximumBytes: Int64 = 256 << 20, maximumDecodedBytes: Int64 = 1 << 30) {
        self.maximumPixels = maximumPixels
        self.maximumBytes = maximumBytes
        self.maximumDecodedBytes = maximumDecodedBytes
    }

    /// Checks what `header` declares against these limits, before any pixel is decoded.
    /// - Throws: ``ImagingError/tooManyPixels(path:pixels:limit:)`` or
    ///   ``ImagingError/tooMuchMemory(path:bytes:limit:)``.
    public func check(_ header: ImageHeader, path: String) throws(ImagingError) {
        guard header.pixelCount <= maximumPixels else {
            throw .tooManyPixels(path: path, pixels: header.pixelCount, limit: maximumPixels)
        }
        guard header.decodedByteCount <= maximumDecodedBytes else {
            throw .tooMuchMemory(path: path, bytes: header.decodedByteCount, limit: maximumDecodedBytes)
        }
    }
}
