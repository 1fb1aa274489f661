/// Why an image could not be read, probed or rendered.
///
/// Every case says what was found, so a user can tell a damaged file from an unsupported or an
/// oversized one; ``reason`` says it without the path, for a caller that names the image its
/// own way (the store names the attachment).
public enum ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips could not be started in this process (missing loaders, bad installation).
    case libraryUnavailable(String)
    /// No trusted libvips loader recognises the data.
    case unsupportedFormat(path: String)
    /// The data claims a known format but cannot be decoded (truncated, corrupt), or the file
    /// cannot be read; `cause` says which.
    case unreadable(path: String, cause: ImageReadFailure)
    /// The header declares more pixels than the configured limit; nothing was decoded.
    case tooManyPixels(path: String, pixels: Int, limit: Int)
    /// The file is larger than the configured limit; nothing was decoded.
    case tooManyBytes(path: String, bytes: Int64, limit: Int64)
    /// Decoding the header's width × height × bands × bytes per band would take more memory
    /// than the configured limit; nothing was decoded.
    case tooMuchMemory(path: String, bytes: Int64, limit: Int64)
    /// The image is larger on its longest side than the `maxPixelSize` it was meant to fit
    /// (a thumbnail handed over by someone else); it was not used.
    case largerThanAllowed(path: String, width: Int, height: Int, maxPixelSize: Int)
    /// The work was cancelled before it finished.
    case cancelled

    /// The image's path, for the cases about one file.
    public var path: String? {
        switch self {
        case .unsupportedFormat(let path), .unreadable(let path, _), .tooManyPixels(let path, _, _),
             .tooManyBytes(let path, _, _), .tooMuchMemory(let path, _, _), .largerThanAllowed(let path, _, _, _):
            path
        case .libraryUnavailable, .cancelled:
            nil
        }
    }

    /// What went wrong, without the image's path.
    public var reason: String {
        switch self {
        case .libraryUnavailable(let reason):
            "libvips could not start: \(reason). Is libvips 8.12 or later installed (apt-get install libvips42)?"
        case .unsupportedFormat:
            "it is not an image format this store can read"
        case .unreadable(let path, let cause):
            // libvips names the file it read; the caller already has.
            cause.description.replacing(path + ": ", with: "")
        case .tooManyPixels(_, let pixels, let limit):
            "it declares \(pixels / 1_000_000) megapixels, over the limit of \(limit / 1_000_000); nothing was decoded"
        case .tooManyBytes(_, let bytes, let limit):
            "it is \(bytes) bytes, over the limit of \(limit); nothing was decoded"
        case .tooMuchMemory(_, let bytes, let limit):
            "it would take \(bytes >> 20) MiB decoded, over the limit of \(limit >> 20) MiB; nothing was decoded"
        case .largerThanAllowed(_, let width, let height, let maxPixelSize):
            "it is \(width)x\(height), larger than \(maxPixelSize) pixels on its longest side"
        case .cancelled:
            "image processing was cancelled"
        }
    }

    /// `path: reason`, or the reason alone when no one file is concerned.
    public var description: String {
        path.map { "\($0): \(reason)" } ?? reason
    }
}
