/// A raster format the store understands, named after its libvips loader.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, webp, heif, avif, gif, tiff

    /// The IANA media type of this format, for example `image/jpeg`.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heif: "image/heic"
        case .avif: "image/avif"
        case .gif: "image/gif"
        case .tiff: "image/tiff"
        }
    }

    /// The format read by a libvips loader (`jpegload`, `heifload`, ...), if it is one we accept.
    init?(loader: String, heifCompression: String?) {
        switch loader {
        case let name where name.hasPrefix("jpegload"): self = .jpeg
        case let name where name.hasPrefix("pngload"): self = .png
        case let name where name.hasPrefix("webpload"): self = .webp
        case let name where name.hasPrefix("gifload"): self = .gif
        case let name where name.hasPrefix("tiffload"): self = .tiff
        case let name where name.hasPrefix("heifload"):
            self = heifCompression == "av1" ? .avif : .heif
        default: return nil
        }
    }
}
