import Foundation

/// A downscaled, upright image of an attachment, with no metadata (no EXIF, GPS or XMP).
public struct Thumbnail: Sendable, Equatable {
    /// The encoded image.
    public let data: Data
    /// `image/jpeg` for opaque images; `image/webp` or `image/png` for images with alpha.
    public let mediaType: String
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Whether a peer made it (of an original that is not here yet): shown only until the
    /// original arrives, then replaced by this store's own render. Never cache it for good.
    public var isProvisional: Bool

    /// Creates a thumbnail value.
    public init(data: Data, mediaType: String, width: Int, height: Int, isProvisional: Bool = false) {
        self.data = data
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.isProvisional = isProvisional
    }
}

/// How urgently a thumbnail is wanted; visible requests are served before prefetching.
public enum ThumbnailPriority: Int, Sendable, Comparable {
    /// Generated ahead of need (after an import, `attach thumbs`).
    case prefetch = 0
    /// Someone is looking at it now.
    case visible = 1

    public static func < (lhs: ThumbnailPriority, rhs: ThumbnailPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
