/// What an image's header says about it, read without decoding any pixel.
public struct ImageHeader: Sendable, Equatable, Codable {
    /// The container format.
    public var format: ImageFormat
    /// Width in pixels as stored (before EXIF orientation is applied).
    public var width: Int
    /// Height in pixels as stored (before EXIF orientation is applied).
    public var height: Int
    /// EXIF orientation, 1...8; 1 when the file has none.
    public var orientation: Int
    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool
    /// Number of frames or pages (1 for a still image).
    public var frameCount: Int
    /// Channels per pixel (3 for RGB, 4 with alpha or CMYK, 1 for grey).
    public var bands: Int
    /// Bytes per channel (1 for 8-bit, 2 for 16-bit, 4 for float).
    public var bytesPerBand: Int
    /// The Live Photo identifier in the EXIF's Apple maker note (``LivePhotoIdentifier``), when
    /// the still of a Live Photo carries one.
    public var contentIdentifier: String?
    /// For an Android motion photo (``MotionPhoto``): where its MP4 clip starts in the file (it
    /// runs to the end); `nil` for any other image.
    public var embeddedVideoOffset: Int64?

    /// Creates a header value.
    public init(format: ImageFormat, width: Int, height: Int, orientation: Int, hasAlpha: Bool, frameCount: Int,
                bands: Int = 3, bytesPerBand: Int = 1, contentIdentifier: String? = nil, embeddedVideoOffset: Int64? = nil) {
        self.contentIdentifier = contentIdentifier
        self.embeddedVideoOffset = embeddedVideoOffset
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.frameCount = frameCount
        self.bands = bands
        self.bytesPerBand = bytesPerBand
    }

    /// Whether EXIF orientation swaps width and height when the image is shown upright (5...8).
    public var isTransposed: Bool { (5...8).contains(orientation) }

    /// Width once EXIF orientation is applied.
    public var displayWidth: Int { isTransposed ? height : width }

    /// Height once EXIF orientation is applied.
    public var displayHeight: Int { isTransposed ? width : height }

    /// Pixel count as stored.
    public var pixelCount: Int { width * height }

    /// The bytes one frame takes decoded at full size: width × height × bands × bytes per band.
    /// The bound a render is checked against before any pixel is read.
    public var decodedByteCount: Int64 { Int64(width) * Int64(height) * Int64(bands) * Int64(bytesPerBand) }
}
