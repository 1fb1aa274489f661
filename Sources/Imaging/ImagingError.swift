/// Why an image could not be read by ``ImageProbe``.
///
/// Every case carries the detail libvips gave, so a user can tell a damaged file
/// from an unsupported one.
public enum ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips could not be started in this process (missing loaders, bad installation).
    case libraryUnavailable(String)
    /// No trusted libvips loader recognises the data.
    case unsupportedFormat(path: String)
    /// The data claims a known format but cannot be decoded (truncated, corrupt).
    case unreadable(path: String, reason: String)
    /// The header declares more pixels than the configured limit; nothing was decoded.
    case tooManyPixels(path: String, pixels: Int, limit: Int)
    /// The file is larger than the configured limit; nothing was decoded.
    case tooManyBytes(path: String, bytes: Int64, limit: Int64)
    /// Decoding the header's width × height × bands × bytes per band would take more memory
    /// than the configured limit; nothing was decoded.
    case tooMuchMemory(path: String, bytes: Int64, limit: Int64)
    /// The work was cancelled before it finished.
    case cancelled

    public var description: String {
        switch self {
        case .libraryUnavailable(let reason):
            return "libvips could not start: \(reason). Is libvips 8.12 or later installed (apt-get install libvips42)?"
        case .unsupportedFormat(let path):
            return "\(path) is not an image format this store can read"
        case .unreadable(let path, let reason):
            return "\(path) could not be read as an image: \(reason)"
        case .tooManyPixels(let path, let pixels, let limit):
            return "\(path) declares \(pixels / 1_000_000) megapixels, over the limit of \(limit / 1_000_000); it was not decoded"
        case .tooManyBytes(let path, let bytes, let limit):
            return "\(path) is \(bytes) bytes, over the limit of \(limit) for decoding"
        case .tooMuchMemory(let path, let bytes, let limit):
            return "\(path) would take \(bytes >> 20) MiB decoded, over the limit of \(limit >> 20) MiB; it was not decoded"
        case .cancelled:
            return "image processing was cancelled"
        }
    }
}
