/// What a video's container says about it, as ffprobe reads it without decoding a frame.
/// The values come from someone else's file: each is checked, and one that makes no sense is
/// dropped (or the whole header refused, for the size).
public struct VideoHeader: Sendable, Equatable {
    /// The video codec's ffmpeg name (`h264`, `hevc`).
    public var codec: String
    /// Width in pixels as stored (before rotation).
    public var width: Int
    /// Height in pixels as stored (before rotation).
    public var height: Int
    /// Degrees clockwise the picture is turned to be shown upright: 0, 90, 180 or 270.
    public var rotation: Int
    /// Seconds of playing time; `nil` when the file does not say.
    public var duration: Double?
    /// When it was recorded, `2024-05-01T12:20:30+02:00` (QuickTime's creation date with its
    /// offset, else the container's UTC creation time); `nil` when the file does not say.
    public var capturedAt: String?
    /// The pixel format ffmpeg names (`yuv420p`, `yuv420p10le`); `nil` when the file does not say.
    public var pixelFormat: String?
    /// The first sound track's codec (`aac`); `nil` when it has none.
    public var audioCodec: String?
    /// The Live Photo identifier of the clip (``LivePhotoIdentifier``), when it is the motion of one.
    public var contentIdentifier: String?

    /// Creates a header value.
    public init(codec: String, width: Int, height: Int, rotation: Int = 0, duration: Double? = nil,
                capturedAt: String? = nil, pixelFormat: String? = nil, audioCodec: String? = nil, contentIdentifier: String? = nil) {
        self.contentIdentifier = contentIdentifier
        self.codec = codec
        self.width = width
        self.height = height
        self.rotation = rotation
        self.duration = duration
        self.capturedAt = capturedAt
        self.pixelFormat = pixelFormat
        self.audioCodec = audioCodec
    }

    /// Whether it has a sound track.
    public var hasAudio: Bool { audioCodec != nil }

    /// The header of a clip already probed, from the size, EXIF orientation and playing time
    /// recorded of it (the codec is not recorded: `unknown`).
    public init(recordedWidth width: Int, height: Int, orientation: Int, durationMilliseconds: Int?) {
        let rotation = switch orientation {
        case 6: 90
        case 3: 180
        case 8: 270
        default: 0
        }
        self.init(codec: "unknown", width: width, height: height, rotation: rotation,
                  duration: durationMilliseconds.map { Double($0) / 1000 })
    }

    /// The EXIF orientation that turns a still the same way: 1, 6 (90°), 3 (180°) or 8 (270°).
    public var orientation: Int {
        switch rotation {
        case 90: 6
        case 180: 3
        case 270: 8
        default: 1
        }
    }

    /// Width as shown, rotation applied.
    public var displayWidth: Int { rotation % 180 == 0 ? width : height }

    /// Height as shown, rotation applied.
    public var displayHeight: Int { rotation % 180 == 0 ? height : width }

    /// Pixels of one frame.
    public var pixelCount: Int { width * height }
}
