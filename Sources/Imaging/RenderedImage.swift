/// An encoded, downscaled image: what ``ThumbnailRenderer`` produces.
public struct RenderedImage: Sendable, Equatable {
    /// The encoding of ``data``.
    public enum Encoding: String, Sendable, Codable, CaseIterable {
        case jpeg, png, webp

        /// IANA media type.
        public var mediaType: String { "image/\(rawValue)" }
        /// File extension.
        public var fileExtension: String { rawValue == "jpeg" ? "jpg" : rawValue }
    }

    /// The encoded bytes, with no metadata block.
    public var data: [UInt8]
    /// How ``data`` is encoded.
    public var encoding: Encoding
    /// Width in pixels, upright.
    public var width: Int
    /// Height in pixels, upright.
    public var height: Int

    /// Creates a rendered image value.
    public init(data: [UInt8], encoding: Encoding, width: Int, height: Int) {
        self.data = data
        self.encoding = encoding
        self.width = width
        self.height = height
    }
}
