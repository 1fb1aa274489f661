import Imaging

/// How a store reads videos and makes the copies browsers play; every field has a safe default.
public struct VideoConfiguration: Sendable {
    /// ffprobe and ffmpeg, which read videos' sizes, make their posters and their playable
    /// copies, and the limits they run under.
    public var tools = VideoTools()
    /// What the playable copy is like (H.264/AAC MP4, at most 1280 px and 15 minutes).
    public var rendition = VideoRendition.Settings()
    /// How many playable copies are made at once. Default 1: a transcode uses every core it
    /// gets, and a second at once finishes neither sooner. Poster frames are made in the
    /// thumbnail pipeline's own slots, so opening a video never waits behind them.
    public var maximumConcurrentTranscodes = 1

    /// The default configuration.
    public init() {}
}
